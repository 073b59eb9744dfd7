"""The Gomocup protocol for the benchmark's baseline players: a minimal brain
loop around a function that picks a move.

A player module gives ``choose(size, stones, exact)`` (``stones``: ``(x, y,
mine)`` in play order) and calls :func:`serve`. It understands START, BEGIN,
TURN, BOARD...DONE, INFO (rule) and END, which is all ``bench/strength.py``
sends; anything else is answered UNKNOWN.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

Choose = Callable[[int, list[tuple[int, int, bool]], bool], tuple[int, int]]


def serve(choose: Choose) -> None:
    size = 15
    exact = False
    stones: list[tuple[int, int, bool]] = []
    board: list[tuple[int, int, bool]] | None = None

    def answer(line: str) -> None:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    def move() -> None:
        x, y = choose(size, stones, exact)
        stones.append((x, y, True))
        answer(f"{x},{y}")

    for raw in sys.stdin:
        line = raw.strip()
        if board is not None:
            if line.upper() == "DONE":
                stones[:] = board
                board = None
                move()
            else:
                x, y, who = (int(part) for part in line.split(","))
                board.append((x, y, who == 1))
            continue
        command, _, argument = line.partition(" ")
        command = command.upper()
        if command == "START":
            size, stones = int(argument), []
            answer("OK")
        elif command == "INFO":
            key, _, value = argument.partition(" ")
            if key == "rule":
                exact = bool(int(value) & 1)
        elif command == "BEGIN":
            move()
        elif command == "TURN":
            x, y = (int(part) for part in argument.split(","))
            stones.append((x, y, False))
            move()
        elif command == "BOARD":
            board = []
        elif command == "END":
            return
        elif command:
            answer(f"UNKNOWN {command}")
