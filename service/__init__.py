"""tictactoe-service: exact move suggestions for m,n,k-games over HTTP.

``service.engine`` is the solver, a library with no web dependencies;
``service.app`` is the HTTP layer that translates to and from it.
"""

__version__ = "0.1.0"
