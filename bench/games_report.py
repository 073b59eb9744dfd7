"""What the games of a match or a gauntlet say beyond the score: for each of
our brains, by the colour it played, the games won, their length, and when
the opponent's replies turned instant (a brain that answers at once from
some move on has, as a rule, seen its forced win there).

    .venv/bin/python bench/games_report.py GAMES.jsonl [--openings bench/openings/balanced.txt]

GAMES.jsonl is what ``bench/match.py --games`` or ``bench/gauntlet.py
--games`` wrote. The colours come from the openings the games were played
from (the pair's index in ``--openings``): after an opening of n stones the
side to move is X when n is even, and the first of a pair's games is the one
our brain moves first in.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path

from match import OPENINGS, read_openings

INSTANT_MS = 30.0  # a reply this fast came without a search


def our_colour(opening_stones: int, ours_first: bool) -> str:
    """X or O: the colour our brain played, from the opening's length and
    whether our brain moved first after it.

    >>> our_colour(3, True), our_colour(3, False), our_colour(4, True)
    ('O', 'X', 'X')
    """
    to_move = "X" if opening_stones % 2 == 0 else "O"
    return to_move if ours_first else ("O" if to_move == "X" else "X")


def instant_from(replies_ms: Sequence[float], instant_ms: float = INSTANT_MS) -> int | None:
    """The index of the reply from which every reply was instant, or None
    when the last one was not.

    >>> instant_from([900, 950, 3, 2]), instant_from([900, 3, 950]), instant_from([])
    (2, None, None)
    """
    index = len(replies_ms)
    while index > 0 and replies_ms[index - 1] < instant_ms:
        index -= 1
    return None if index == len(replies_ms) else index


def entrant_name(record: dict[str, object]) -> str:
    """Our brain as the report names it: its spec, its own INFO lines and,
    in a gauntlet, its number there (0 the baseline).

    >>> entrant_name({"ours": "brain@HEAD", "infos": ["INFO thread_num 2"], "entrant": 1})
    'brain@HEAD (INFO thread_num 2) #1'
    >>> entrant_name({"ours": "brain"})
    'brain'
    """
    name = str(record["ours"])
    infos = record.get("infos")
    if isinstance(infos, list) and infos:
        name += f" ({'; '.join(map(str, infos))})"
    if "entrant" in record:
        name += f" #{record['entrant']}"
    return name


def report(records: Iterable[dict[str, object]], openings: Sequence[object]) -> list[str]:
    """A line for each of our brains and colours."""
    rows: dict[tuple[str, str], list[tuple[int | None, int, int | None]]] = defaultdict(list)
    for record in records:
        pair = record["pair"]
        ours_first = record["ours_first"]
        moves = record["moves"]
        replies = record["replies_ms"]
        assert isinstance(pair, int) and isinstance(ours_first, bool)
        assert isinstance(moves, list) and isinstance(replies, list)
        opening = openings[pair % len(openings)]
        assert isinstance(opening, tuple)
        colour = our_colour(len(opening), ours_first)
        us = 0 if ours_first else 1
        winner = record["winner"]
        outcome = None if winner is None else 1 if winner == us else -1  # None: a draw
        rows[(entrant_name(record), colour)].append(
            (outcome, len(moves), instant_from(replies[1 - us]))
        )
    lines = []
    for (name, colour), games in sorted(rows.items()):
        won = sum(o == 1 for o, _, _ in games)
        drawn = sum(o is None for o, _, _ in games)
        lengths = [n for _, n, _ in games]
        lost = [(n, k) for o, n, k in games if o == -1]
        sure = [k + 1 for _, k in lost if k is not None]  # counted from 1
        line = (
            f"{name} as {colour}: {len(games)} games, {won} won, {drawn} drawn, "
            f"{len(lost)} lost; median length {statistics.median(lengths):g} stones"
        )
        if lost:
            line += (
                f"; of the {len(lost)} lost, {len(sure)} ended in instant replies of the "
                f"opponent's, from its reply number {statistics.median(sure):g} (median)"
                if sure
                else f"; of the {len(lost)} lost, the opponent was never instant to the end"
            )
        lines.append(line)
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games", type=Path, nargs="+")
    parser.add_argument("--openings", type=Path, default=OPENINGS / "balanced.txt")
    args = parser.parse_args()
    openings = read_openings(args.openings)
    records = [json.loads(line) for path in args.games for line in path.read_text().splitlines()]
    print("\n".join(report(records, openings)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
