"""The HTTP layer: translates between HTTP and the engine, and decides nothing
about the game. ``service.app.create_app`` wires these modules together."""
