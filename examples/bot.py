"""A bot that plays a whole game against itself through the API, with tictactoe-client.

    pip install clients/python                  # the client; it needs only httpx
    python examples/bot.py                      # 3x3 against http://127.0.0.1:8000
    python examples/bot.py --board 4x4 --k 3 --x-level perfect --o-level easy

Each side asks ``POST /v1/move`` for its move at its own difficulty; the bot
prints the board after every move and the result at the end.
"""

from __future__ import annotations

import argparse
import typing

from tictactoe_client import Client, Difficulty, MoveAnswer, ProblemError


def empty_board(rows: int, cols: int) -> str:
    return "/".join("." * cols for _ in range(rows))


def play_game(
    client: Client,
    rows: int = 3,
    cols: int = 3,
    k: int | None = None,
    levels: tuple[Difficulty, Difficulty] = ("perfect", "perfect"),
    seed: int | None = None,
    show: bool = True,
) -> MoveAnswer:
    """Play until the game ends; return the last move answer."""
    board = empty_board(rows, cols)
    turn = 0
    while True:
        answer = client.move(
            board,
            k=k,
            difficulty=levels[turn % 2],
            seed=None if seed is None else seed + turn,
        )
        board = answer.board_after
        if show:
            print(
                f"{answer.player} plays row {answer.move.row}, col {answer.move.col} "
                f"(score {answer.score:g}, {answer.outcome or 'estimate'})"
            )
            cells = board.replace("/", "")
            print("  " + "\n  ".join(cells[i : i + cols] for i in range(0, len(cells), cols)))
        if answer.status_after != "in_progress":
            if show:
                winner = answer.winner_after
                print("draw" if winner is None else f"{winner} wins")
            return answer
        turn += 1


def main() -> None:
    levels = typing.get_args(Difficulty)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--board", default="3x3", help="ROWSxCOLS, e.g. 4x4")
    parser.add_argument("--k", type=int, default=None)
    parser.add_argument("--x-level", default="perfect", choices=levels)
    parser.add_argument("--o-level", default="perfect", choices=levels)
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args()
    rows, cols = (int(n) for n in args.board.lower().split("x"))
    with Client(args.url) as client:
        try:
            play_game(client, rows, cols, args.k, (args.x_level, args.o_level), args.seed)
        except ProblemError as error:
            raise SystemExit(f"{error.title}: {error.detail}") from None


if __name__ == "__main__":
    main()
