"""Changes measured against a reference engine: the baseline brain and each
candidate play the same openings against the same opponent (Rapfi), and a
candidate's gain is its difference from the baseline, opening by opening.

    R=/path/to/pbrain-rapfi
    .venv/bin/python bench/gauntlet.py --reference $R --baseline brain@main
    # the candidate is this working tree's brain unless --candidate names
    # another; several candidates share the baseline's games
    .venv/bin/python bench/gauntlet.py --reference $R --baseline brain@main \\
        --candidate brain@exp-a --candidate brain@exp-b
    # at a fixed count of nodes a move, every side (INFO max_node): the same
    # games on every run, whatever the machine's load
    .venv/bin/python bench/gauntlet.py --reference $R --baseline brain@main \\
        --candidate brain@exp-a --nodes 100000 --turn-ms 60000 --games main.jsonl
    # and so the baseline's games of that run stand for it in the next
    # (checked: its record must be the same brain at the same count of nodes)
    .venv/bin/python bench/gauntlet.py --reference $R --baseline brain@main \\
        --baseline-games main.jsonl --candidate brain@exp-b --nodes 100000 --turn-ms 60000
    # one brain on one thread and on two (INFO lines by entrant: 0 the baseline)
    .venv/bin/python bench/gauntlet.py --reference $R --baseline brain --candidate brain \\
        --info "1:thread_num 2" --workers 1

Why not only the match of a change against its parent (``bench/match.py
--opponent brain@REV --sprt``): two brains that both win as the first player
split most pairs 1-1 whatever their difference (from
``bench/openings/decided.txt`` at 1 s a turn, 81-87% of the pairs), so the
sequential test decides on the few others. Against a stronger opponent the
pairs spread: Rapfi wins some openings with both colours and splits others,
and a better brain turns the first kind into the second. It also measures
what the issue asks for: the score against the champion.

The games are interleaved: for each opening, the baseline's pair and each
candidate's are played before the next opening's, so that all meet the same
load on the machine. The report gives each entrant's score and Elo against
the reference, and each candidate's gain (``sprt.paired_difference``): its
mean over the openings in score and in Elo, with its 95% interval. Each
side's timing is reported as ``bench/match.py`` does.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import sprt
from match import (
    OPENINGS,
    Opening,
    Side,
    Tally,
    entrant,
    game_record,
    placed,
    play_game,
    read_openings,
    scores,
    timing,
)

from service.engine import Rule
from tests.brain.manager import Game

Job = tuple[int, int, bool]  # (opening's index, entrant (0: the baseline), ours first)


def jobs(pairs: int, entrants: int, first_entrant: int = 0) -> list[Job]:
    """Every game, opening by opening: each entrant's pair of an opening, the
    baseline's first, before the next opening's (from ``first_entrant``: 1
    where the baseline's games are read, not played).

    >>> jobs(2, 2, 1)
    [(0, 1, True), (0, 1, False), (1, 1, True), (1, 1, False)]
    """
    return [
        (index, who, first)
        for index in range(pairs)
        for who in range(first_entrant, entrants)
        for first in (True, False)
    ]


def recorded_games(
    path: Path, side: Side, size: int, rule: Rule, openings: Sequence[Opening], pairs: int
) -> dict[tuple[int, bool], Game]:
    """The games ``side`` played in an earlier run's ``--games`` file (a
    gauntlet's baseline, entrant 0, or a match's own brain), by (opening's
    index, ours first), for the first ``pairs`` openings: only a record of the
    same brain with the same INFO lines (its count of nodes) on the same
    board, rule and opening stands for a game. SystemExit when one is missing.
    (At a fixed count of nodes a game is the same on every run: docs/strength.md.)"""
    found: dict[tuple[int, bool], Game] = {}
    for line in path.read_text().splitlines():
        record = json.loads(line)
        index = record["pair"]
        if (
            record.get("entrant", 0) != 0
            or record["ours"] != side.name
            or tuple(record["infos"]) != side.infos
            or record["size"] != size
            or record["rule"] != rule.value
            or index >= pairs
        ):
            continue
        moves = [tuple(move) for move in record["moves"]]
        opening = placed(openings[index % len(openings)], size)
        if moves[: len(opening)] != opening:
            raise SystemExit(f"{path}: pair {index} was not played from this --openings file")
        found[(index, record["ours_first"])] = Game(
            size,
            rule,
            side.turn_ms,
            opening,
            moves,
            record["replies_ms"],
            record["winner"],
            record["forfeit"],
        )
    missing = [
        (i, first) for i in range(pairs) for first in (True, False) if (i, first) not in found
    ]
    if missing:
        raise SystemExit(
            f"{path}: no game of {side.name} with {list(side.infos)} for {len(missing)} of the "
            f"{2 * pairs} games (the first: opening {missing[0][0]})"
        )
    return found


def complete_pairs(tallies: Sequence[Tally]) -> list[list[float]]:
    """Each entrant's points on the openings that every entrant has
    finished, in the openings' order."""
    done = sorted(set.intersection(*(set(tally.by_pair) for tally in tallies)))
    return [[tally.by_pair[i] for i in done] for tally in tallies]


def progress(tallies: Sequence[Tally]) -> str:
    """A line of the scores so far: the baseline's, then each candidate's
    with its gain."""
    baseline, *candidates = complete_pairs(tallies)
    line = f"{len(baseline):4d} openings  baseline {statistics.fmean(baseline) / 2:.3f}"
    for number, candidate in enumerate(candidates, 1):
        d = sprt.paired_difference(baseline, candidate)
        # No Elo gain is defined from a baseline's score of 0 or 1 (nan).
        elo = (
            "Elo undefined"
            if math.isnan(d.elo)
            else f"Elo {d.elo:+.0f} [{d.elo_low:+.0f}, {d.elo_high:+.0f}]"
        )
        line += (
            f"  | {number}: {d.candidate:.3f}, gain {d.gain:+.3f} "
            f"[{d.gain_low:+.3f}, {d.gain_high:+.3f}], {elo}"
        )
    return line


def side_infos(
    options: Sequence[str], entrants: int, nodes: int
) -> tuple[list[tuple[str, ...]], tuple[str, ...]]:
    """Each entrant's INFO lines and the reference's: ``--nodes`` (when not
    0) for every side, then each entrant's ``--info`` lines.

    >>> side_infos(["1:thread_num 2"], 2, 500)
    ([('INFO max_node 500',), ('INFO max_node 500', 'INFO thread_num 2')], ('INFO max_node 500',))
    """
    count = (f"INFO max_node {nodes}",) if nodes else ()
    return [(*count, *lines) for lines in entrant_infos(options, entrants)], count


def entrant_infos(options: Sequence[str], entrants: int) -> list[tuple[str, ...]]:
    """The INFO lines of each entrant from ``--info N:KEY VALUE`` options.

    >>> entrant_infos(["1:thread_num 2", "0:max_memory 0"], 2)
    [('INFO max_memory 0',), ('INFO thread_num 2',)]
    """
    lines: list[list[str]] = [[] for _ in range(entrants)]
    for option in options:
        number, _, line = option.partition(":")
        if not number.isdigit() or int(number) >= entrants or not line.strip():
            raise SystemExit(f"--info {option!r}: N:KEY VALUE, N from 0 to {entrants - 1}")
        lines[int(number)].append(f"INFO {line.strip()}")
    return [tuple(found) for found in lines]


def entry(side: Side, reference: Side, tally: Tally) -> dict[str, object]:
    """One entrant's results against the reference."""
    return {
        "brain": side.name,
        "infos": list(side.infos),
        **scores(tally),
        "timing": timing(tally.replies_ms[0], side.turn_ms),
        "reference_timing": timing(tally.replies_ms[1], reference.turn_ms),
        "forfeits": tally.forfeits,
    }


def finite(elo: float) -> int | None:
    """An Elo for the JSON report: None where it is infinite or undefined
    (a score of 0 or 1, sprt.paired_difference).

    >>> finite(12.6), finite(float("inf")), finite(float("nan"))
    (13, None, None)
    """
    return round(elo) if math.isfinite(elo) else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reference", required=True, help="the opponent: a brain's path")
    parser.add_argument("--baseline", required=True, help="brain, brain@REV or a path")
    parser.add_argument(
        "--candidate",
        action="append",
        help="brain, brain@REV or a path; again for more (default: this working tree's)",
    )
    parser.add_argument("--size", type=int, default=15)
    parser.add_argument("--rule", choices=[r.value for r in Rule], default=Rule.FREESTYLE.value)
    parser.add_argument("--turn-ms", type=int, default=1000, help="each entrant's timeout_turn")
    parser.add_argument("--their-turn-ms", type=int, help="the reference's (default: the same)")
    parser.add_argument("--pairs", type=int, default=64, help="openings (a pair of games each)")
    parser.add_argument("--openings", type=Path, default=OPENINGS / "balanced.txt")
    parser.add_argument("--forfeit-ms", type=int, default=5000)
    parser.add_argument("--games", type=Path, help="append every game (JSON lines) to this file")
    parser.add_argument("--workers", type=int, default=2, help="games at once")
    parser.add_argument(
        "--nodes",
        type=int,
        default=0,
        help="every side's nodes a move, the reference's too (INFO max_node; the turn "
        "still caps it)",
    )
    parser.add_argument(
        "--baseline-games",
        type=Path,
        help="with --nodes: the baseline's games from an earlier run's --games file, read "
        "instead of played (recorded_games())",
    )
    parser.add_argument(
        "--info",
        action="append",
        default=[],
        metavar="N:KEY VALUE",
        help="an INFO line for entrant N (0 the baseline, 1 the first candidate, ...)",
    )
    args = parser.parse_args()
    if args.pairs < 1:
        parser.error("--pairs: at least 1")
    if args.baseline_games is not None and not args.nodes:
        parser.error("--baseline-games: only with --nodes (a timed game differs run to run)")

    rule = Rule(args.rule)
    openings = read_openings(args.openings)
    specs = [args.baseline, *(args.candidate or ["brain"])]
    infos, reference_infos = side_infos(args.info, len(specs), args.nodes)
    tallies = [Tally() for _ in specs]
    points: dict[tuple[int, int], list[float]] = {}
    lock = threading.Lock()
    with tempfile.TemporaryDirectory(prefix="gauntlet-") as scratch:
        entrants = []
        for who, spec in enumerate(specs):
            own = Path(scratch) / str(who)  # brain@REV builds there: two may name one REV
            own.mkdir()
            entrants.append(Side(spec, entrant(spec, own), args.turn_ms, infos[who]))
        reference = Side(
            args.reference,
            entrant(args.reference, Path(scratch)),
            args.their_turn_ms or args.turn_ms,
            reference_infos,
        )
        began = time.monotonic()
        reported = 0
        recorded: dict[tuple[int, bool], Game] = {}
        if args.baseline_games is not None:
            recorded = recorded_games(
                args.baseline_games, entrants[0], args.size, rule, openings, args.pairs
            )

        def one(job: Job) -> None:
            nonlocal reported
            index, who, ours_first = job
            opening = openings[index % len(openings)]
            if who == 0 and recorded:
                game = recorded[(index, ours_first)]
            else:
                game = play_game(
                    entrants[who],
                    reference,
                    args.size,
                    rule,
                    opening,
                    ours_first,
                    args.forfeit_ms,
                    0,
                )
            with lock:
                got = points.setdefault((index, who), [])
                got.append(tallies[who].add(game, ours_first))
                if len(got) == 2:
                    tallies[who].pair(got, index)
                    done = len(complete_pairs(tallies)[0])
                    if done > reported:
                        reported = done
                        line = progress(tallies)
                        print(f"{line}  {time.monotonic() - began:.0f} s", file=sys.stderr)
                if args.games is not None and not (who == 0 and recorded):
                    record = game_record(
                        entrants[who], reference, args.size, rule, index, ours_first, game
                    )
                    record["entrant"] = who  # 0 the baseline: two may be one build
                    with args.games.open("a") as out:
                        out.write(json.dumps(record) + "\n")

        with ThreadPoolExecutor(max_workers=args.workers) as pool:
            try:
                for job in jobs(args.pairs, len(specs)) if recorded else []:
                    if job[1] == 0:  # read, not played: tallied in the openings' order
                        one(job)
                played = jobs(args.pairs, len(specs), 1 if recorded else 0)
                for future in [pool.submit(one, job) for job in played]:
                    future.result()
            except BaseException:  # a failed game or Ctrl-C: no more games start
                pool.shutdown(cancel_futures=True)
                raise

    baseline, *candidates = complete_pairs(tallies)
    results = [entry(side, reference, tally) for side, tally in zip(entrants, tallies, strict=True)]
    for result, candidate in zip(results[1:], candidates, strict=True):
        d = sprt.paired_difference(baseline, candidate)
        result["gain"] = round(d.gain, 4)
        result["gain_95"] = [round(d.gain_low, 4), round(d.gain_high, 4)]
        result["elo_gain"] = finite(d.elo)
        result["elo_gain_95"] = [finite(d.elo_low), finite(d.elo_high)]
    row = {
        "reference": args.reference,
        "board": f"{args.size}x{args.size}",
        "rule": rule.value,
        "turn_ms": [args.turn_ms, args.their_turn_ms or args.turn_ms],
        "openings": len(baseline),
        "baseline": results[0],
        "candidates": results[1:],
    }
    print(json.dumps({"gauntlet": row}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
