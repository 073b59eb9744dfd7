"""A bot that plays a whole game against itself through the API, with httpx.

    python examples/bot.py                      # 3x3 against http://127.0.0.1:8000
    python examples/bot.py --board 4x4 --k 3 --x-level perfect --o-level easy

Each side asks ``POST /v1/move`` for its move at its own difficulty; the bot
prints the board after every move and the result at the end.
"""

from __future__ import annotations

import argparse

import httpx


def empty_board(rows: int, cols: int) -> str:
    return "/".join("." * cols for _ in range(rows))


def play_game(
    client: httpx.Client,
    rows: int = 3,
    cols: int = 3,
    k: int | None = None,
    levels: tuple[str, str] = ("perfect", "perfect"),
    seed: int | None = None,
    show: bool = True,
) -> dict[str, object]:
    """Play until the game ends; return the last move answer."""
    board = empty_board(rows, cols)
    turn = 0
    while True:
        request: dict[str, object] = {"board": board, "difficulty": levels[turn % 2]}
        if k is not None:
            request["k"] = k
        if seed is not None:
            request["seed"] = seed + turn
        response = client.post("/v1/move", json=request)
        if response.status_code != 200:
            problem = response.json()
            raise RuntimeError(f"{problem['title']}: {problem['detail']}")
        answer = response.json()
        board = answer["board_after"]
        if show:
            cell = answer["move"]
            print(
                f"{answer['player']} plays row {cell['row']}, col {cell['col']} "
                f"(score {answer['score']}, {answer['outcome'] or 'estimate'})"
            )
            print(
                "  "
                + "\n  ".join(
                    board.split("/")
                    if "/" in board
                    else [board[i : i + cols] for i in range(0, len(board), cols)]
                )
            )
        if answer["status_after"] != "in_progress":
            if show:
                winner = answer["winner_after"]
                print("draw" if winner is None else f"{winner} wins")
            return dict(answer)
        turn += 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--board", default="3x3", help="ROWSxCOLS, e.g. 4x4")
    parser.add_argument("--k", type=int, default=None)
    parser.add_argument("--x-level", default="perfect")
    parser.add_argument("--o-level", default="perfect")
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args()
    rows, cols = (int(n) for n in args.board.lower().split("x"))
    with httpx.Client(base_url=args.url, timeout=30) as client:
        play_game(client, rows, cols, args.k, (args.x_level, args.o_level), args.seed)


if __name__ == "__main__":
    main()
