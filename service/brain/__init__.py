"""The engine as a Gomocup brain (see ``protocol.py``); ``main`` is ``pbrain-tictactoe``."""

from service.brain.protocol import WARM_NODES, Brain, Clock, main, moves_left

__all__ = ["WARM_NODES", "Brain", "Clock", "main", "moves_left"]
