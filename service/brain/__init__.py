"""The engine as a Gomocup brain (see ``protocol.py``); ``main`` is ``pbrain-tictactoe``."""

from service.brain.clock import Clock, moves_left
from service.brain.protocol import WARM_NODES, Brain, main

__all__ = ["WARM_NODES", "Brain", "Clock", "main", "moves_left"]
