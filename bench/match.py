"""Matches between Gomocup brains: the service's brain against any program
that speaks the protocol, or against itself at another revision. The harness
every change to the search or the evaluation goes through (CONTRIBUTING.md).

    # a fixed number of games against an engine given by path
    .venv/bin/python bench/match.py --opponent /path/to/pbrain-rapfi --pairs 32 --turn-ms 1000
    # the opponent a tenth of our time
    .venv/bin/python bench/match.py --opponent /path/to/rapfi --turn-ms 1000 --their-turn-ms 100
    # a change against the revision before it, until the sequential test decides
    .venv/bin/python bench/match.py --opponent brain@HEAD~1 --sprt 0,30 --pairs 200

Entrants (``--ours`` and ``--opponent``): ``brain`` is this working tree's
brain (``python -m service.brain``), ``brain@REV`` the brain of a git
revision with its core built from that revision's sources, and anything else
the path of a brain's executable, started in its own folder.

Openings come from a committed file (``bench/openings/*.txt``: one opening a
line, stones in play order from the first player, each as ``dx,dy`` from the
board's centre), by default ``decided.txt``: openings that time decides (the
brain at 300 ms a turn wins both colours against itself at 30 ms; written by
``--make-openings 64 --balance 0.85 --decided-by 300,30``). Each is played
twice, each side first once, and the pair is the unit of the statistics
(``bench/sprt.py``): the score, the Elo with its 95% interval, and with
``--sprt elo0,elo1`` the sequential test, which stops the match as soon as it
decides. ``--make-openings N`` writes a new file of openings this engine
scores within ``--balance`` of even, and with ``--decided-by`` only those that
time decides.

Both sides get their own ``timeout_turn`` and no match clock unless
``--match-ms`` is given: then the referee keeps each side's clock for the
game as a manager does (``timeout_match``, ``time_left`` before each move,
the replies' times taken off), and a side whose clock runs out loses. For
each side the report gives the time per reply, the longest, the share of the
turn used, and the replies later than the turn ("late"). A reply later than
``--forfeit-ms`` past the turn, an illegal move, or a crash loses the game.
Two games run at once, one per core.

``--busy N`` keeps N more processes spinning on the CPU for the whole match:
the clock's test on a machine loaded from outside (each brain then gets a
share of a core, and the referee's timing includes the scheduler's delays).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sprt
from local_server import REPO
from strength import openings, previous_brain

sys.path.insert(0, str(REPO))  # the tests' Gomocup manager referees

from service.engine import Rule
from tests.brain.manager import BRAIN, Entrant, Game, play

OPENINGS = REPO / "bench" / "openings"
PAUSE_SECONDS = 0.03  # before each move is asked for (see tests/brain/manager.play)
NODES_TURN_MS = 60_000  # the turn of a fixed-node match: the count, not the clock, ends a search


@dataclass(frozen=True)
class Side:
    """One entrant of the match, with its limits."""

    name: str
    entrant: Entrant
    turn_ms: int
    infos: tuple[str, ...] = ()


_BUILT: dict[Path, Entrant] = {}  # the brains built for this run, by their folder


def entrant(spec: str, scratch: Path) -> Entrant:
    """The entrant a command-line spec names (see the module's docstring)."""
    if spec == "brain":
        return Entrant(BRAIN, quiet=True)
    if spec.startswith("brain@"):
        revision = spec.removeprefix("brain@")
        here = scratch / revision.replace("/", "_").replace("~", "-")
        if here not in _BUILT:  # both sides may name one revision (with other INFO lines)
            here.mkdir()
            found = previous_brain(revision, here)
            _BUILT[here] = Entrant(found.command, found.env, found.cwd, quiet=True)
        return _BUILT[here]
    path = Path(spec).resolve()
    if not path.is_file():
        raise SystemExit(f"{spec}: not 'brain', 'brain@REV' nor an executable file")
    return Entrant((str(path),), cwd=path.parent, quiet=True)


# -- openings ----------------------------------------------------------------------


Opening = tuple[tuple[int, int], ...]  # (dx, dy) from the centre, in play order
Position = tuple[frozenset[tuple[int, int]], frozenset[tuple[int, int]]]  # each side's stones


def read_openings(path: Path) -> list[Opening]:
    """The openings of a file: a line each, ``dx,dy`` stones separated by spaces;
    ``#`` starts a comment."""
    found: list[Opening] = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        text = line.partition("#")[0].strip()
        if not text:
            continue
        try:
            stones = tuple(
                (int(dx), int(dy)) for dx, dy in (part.split(",") for part in text.split())
            )
        except ValueError:
            raise SystemExit(f"{path}:{number}: an opening is dx,dy stones; got {line!r}") from None
        if len(set(stones)) != len(stones):
            raise SystemExit(f"{path}:{number}: a cell is played twice")
        found.append(stones)
    return found


def placed(opening: Opening, size: int) -> list[tuple[int, int]]:
    """An opening's stones on a board of ``size``, as (x, y)."""
    centre = size // 2
    return [(centre + dx, centre + dy) for dx, dy in opening]


def make_openings(
    count: int, seed: int, balance: float, nodes: int, rule: Rule = Rule.FREESTYLE
) -> list[Opening]:
    """``count`` openings of two to five stones within three of the centre that
    this engine (a search of ``nodes`` from a new table) scores within
    ``balance`` of even on 15x15 under ``rule``: ``strength.openings``, as
    offsets from the centre."""
    chosen = openings(count, 15, rule, seed, balance, nodes)
    return [tuple((x - 7, y - 7) for x, y in stones) for stones in chosen]


def decided_by(
    candidates: Sequence[Opening],
    rule: Rule,
    strong: Side,
    weak: Side,
    workers: int,
    pause: float = PAUSE_SECONDS,
) -> list[Opening]:
    """The candidates that strength decides: this brain as ``strong`` plays a
    pair from each against itself as ``weak`` and wins both games. An opening
    that one colour wins whatever the sides' strength scores 1-1 for any two
    entrants, and tells a match nothing."""
    tally, _ = run_match(
        strong, weak, 15, rule, candidates, len(candidates), None, 5_000, 0, None, workers, pause
    )
    return kept_openings(candidates, tally.by_pair)


def decided_by_time(
    candidates: Sequence[Opening], rule: Rule, strong_ms: int, weak_ms: int, workers: int
) -> list[Opening]:
    """The candidates the brain at ``strong_ms`` a turn wins twice at ``weak_ms``."""
    strong = Side("strong", entrant("brain", Path()), strong_ms)
    weak = Side("weak", entrant("brain", Path()), weak_ms)
    return decided_by(candidates, rule, strong, weak, workers)


def decided_by_nodes(
    candidates: Sequence[Opening], rule: Rule, strong_nodes: int, weak_nodes: int, workers: int
) -> list[Opening]:
    """The candidates the brain at ``strong_nodes`` a move wins twice at
    ``weak_nodes``: a fixed-node match, so the same every time it is run."""
    brain = entrant("brain", Path())
    strong = Side("strong", brain, NODES_TURN_MS, (f"INFO max_node {strong_nodes}",))
    weak = Side("weak", brain, NODES_TURN_MS, (f"INFO max_node {weak_nodes}",))
    return decided_by(candidates, rule, strong, weak, workers, pause=0.0)


def position(opening: Opening) -> Position:
    """An opening as the position it makes: the first player's stones and the
    second's, whatever the order they were played in."""
    return frozenset(opening[0::2]), frozenset(opening[1::2])


def decided_openings(
    count: int,
    seed: int,
    candidates: Callable[[int], Sequence[Opening]],
    judge: Callable[[Sequence[Opening]], list[Opening]],
    idle_seeds: int = 3,
) -> tuple[list[Opening], int]:
    """``count`` openings that ``judge`` keeps, from ``candidates(seed)`` for
    seed, seed + 1, ...: each position is judged once (a rejected one is not
    tried again from a later seed, where a noisy second try could pass it),
    and no more than are still wanted. Returns them and the last seed used;
    SystemExit after ``idle_seeds`` seeds in a row that keep nothing."""
    kept: list[Opening] = []
    tried: set[Position] = set()
    idle = 0
    while True:
        fresh = []
        for opening in candidates(seed):
            if (made := position(opening)) not in tried:
                tried.add(made)
                fresh.append(opening)
        more = judge(fresh[: 2 * (count - len(kept))])
        kept += more
        print(f"seed {seed}: {len(kept)} of {count}", file=sys.stderr, flush=True)
        if len(kept) >= count:
            return kept[:count], seed
        idle = 0 if more else idle + 1
        if idle >= idle_seeds:
            raise SystemExit(f"{idle_seeds} seeds in a row kept no opening; {len(kept)} of {count}")
        seed += 1


def kept_openings(candidates: Sequence[Opening], by_pair: dict[int, float]) -> list[Opening]:
    """The candidates whose pair the stronger side won twice, in their order."""
    return [opening for i, opening in enumerate(candidates) if by_pair.get(i) == 2.0]


# -- the match -----------------------------------------------------------------------


@dataclass
class Tally:
    """What a match has played so far, from our side's point of view."""

    pair_points: list[float] = field(default_factory=list)
    wins: int = 0
    draws: int = 0
    losses: int = 0
    replies_ms: tuple[list[float], list[float]] = field(default_factory=lambda: ([], []))
    forfeits: list[str] = field(default_factory=list)
    by_pair: dict[int, float] = field(default_factory=dict)  # points by the pair's index

    def add(self, game: Game, ours_first: bool) -> float:
        """Time a game's replies; its points for us (counted by ``pair()``)."""
        us = 0 if ours_first else 1
        points = 0.5 if game.winner is None else 1.0 if game.winner == us else 0.0
        self.replies_ms[0].extend(game.replies_ms[us])
        self.replies_ms[1].extend(game.replies_ms[1 - us])
        if game.forfeit:
            self.forfeits.append(
                game.forfeit.replace("entrant 0", "first").replace("entrant 1", "second")
            )
        return points

    def pair(self, points: Sequence[float], index: int) -> None:
        """A finished pair (``index``: its place in the match, from 0): only
        whole pairs count (a game still running when the test decides is
        timed, not scored)."""
        total = sum(points)
        self.pair_points.append(total)
        self.by_pair[index] = total
        self.wins += points.count(1.0)
        self.draws += points.count(0.5)
        self.losses += points.count(0.0)


def timing(replies: Sequence[float], turn_ms: int) -> dict[str, float | int]:
    """A side's time per reply against its turn."""
    if not replies:
        return {"replies": 0}
    return {
        "replies": len(replies),
        "median_ms": round(statistics.median(replies), 1),
        "mean_ms": round(statistics.fmean(replies), 1),
        "longest_ms": round(max(replies), 1),
        "turn_share": round(statistics.fmean(replies) / turn_ms, 3),
        "late": sum(ms > turn_ms for ms in replies),
    }


def play_game(
    ours: Side,
    theirs: Side,
    size: int,
    rule: Rule,
    opening: Opening,
    ours_first: bool,
    forfeit_ms: int,
    match_ms: int,
    pause: float = PAUSE_SECONDS,
) -> Game:
    first, second = (ours, theirs) if ours_first else (theirs, ours)
    common = max(ours.turn_ms, theirs.turn_ms)

    def infos(side: Side) -> tuple[str, ...]:
        return (f"INFO timeout_turn {side.turn_ms}", *side.infos)

    return play(
        size,
        rule,
        common,
        (first.entrant, second.entrant),
        placed(opening, size),
        answer_timeout=(common + forfeit_ms) / 1000,
        infos=(infos(first), infos(second)),
        pause=pause,
        match_ms=match_ms,
    )


def run_match(
    ours: Side,
    theirs: Side,
    size: int,
    rule: Rule,
    openings: Sequence[Opening],
    pairs: int,
    test: tuple[float, float] | None,
    forfeit_ms: int,
    match_ms: int,
    games_out: Path | None,
    workers: int = 2,
    pause: float = PAUSE_SECONDS,
) -> tuple[Tally, str | None]:
    """Play up to ``pairs`` pairs (the openings in order, again from the first
    when they run out); with ``test``, stop when the SPRT decides."""
    tally = Tally()
    lock = threading.Lock()
    pending_pair: dict[int, list[float]] = {}
    decided: str | None = None
    jobs = [(index, ours_first) for index in range(pairs) for ours_first in (True, False)]

    def one(job: tuple[int, bool]) -> tuple[int, bool, Game]:
        index, ours_first = job
        opening = openings[index % len(openings)]
        return (
            index,
            ours_first,
            play_game(ours, theirs, size, rule, opening, ours_first, forfeit_ms, match_ms, pause),
        )

    began = time.monotonic()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        queue = iter(jobs)
        running: set[Future[tuple[int, bool, Game]]] = set()
        for job in queue:
            running.add(pool.submit(one, job))
            if len(running) >= workers:
                break
        while running:
            done, running = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                index, ours_first, game = future.result()
                with lock:
                    points = tally.add(game, ours_first)
                    pending_pair.setdefault(index, []).append(points)
                    if len(pending_pair[index]) == 2:
                        tally.pair(pending_pair.pop(index), index)
                        report_progress(tally, test, began)
                        if test is not None and decided is None:
                            decided = sprt.verdict(tally.pair_points, *test)
                if games_out is not None:
                    record = game_record(ours, theirs, size, rule, index, ours_first, game)
                    with games_out.open("a") as out:
                        out.write(json.dumps(record) + "\n")
            if decided is None:
                for job in queue:
                    running.add(pool.submit(one, job))
                    if len(running) >= workers:
                        break
    return tally, decided


def game_record(
    ours: Side, theirs: Side, size: int, rule: Rule, index: int, ours_first: bool, game: Game
) -> dict[str, object]:
    """A game as ``--games`` writes it, a JSON line each."""
    return {
        "ours": ours.name,
        "infos": list(ours.infos),  # our brain's own INFO lines
        "theirs": theirs.name,
        "size": size,
        "rule": rule.value,
        "pair": index,
        "ours_first": ours_first,
        "moves": game.moves,
        "winner": game.winner,
        "forfeit": game.forfeit,
        "replies_ms": game.replies_ms,
    }


def opening_stones(record: Mapping[str, Any]) -> int:
    """How many of a ``--games`` record's stones were its opening's: those no
    entrant's timed reply placed.

    >>> opening_stones({"moves": [[7, 7], [8, 8], [9, 9]], "replies_ms": [[5.0], [6.0]]})
    1
    """
    return len(record["moves"]) - len(record["replies_ms"][0]) - len(record["replies_ms"][1])


def scores(tally: Tally) -> dict[str, object]:
    """A match's games, pairs, score and Elo with its interval, for the report."""
    estimate = sprt.estimate(tally.pair_points)
    return {
        "wins_draws_losses": [tally.wins, tally.draws, tally.losses],
        "pentanomial": sprt.pentanomial(tally.pair_points),
        "score": round(estimate.score, 4),
        "elo": round(estimate.elo),
        "elo_95": [round(estimate.elo_low), round(estimate.elo_high)],
    }


@contextlib.contextmanager
def busy_machine(processes: int) -> Iterator[list[subprocess.Popen[bytes]]]:
    """``processes`` programs spinning on the CPU until the block ends."""
    spinners: list[subprocess.Popen[bytes]] = []
    try:
        for _ in range(processes):
            spinners.append(
                subprocess.Popen(
                    [sys.executable, "-c", "while True: pass"],
                    stdin=subprocess.DEVNULL,
                    start_new_session=True,  # Ctrl-C is the match's, not theirs
                )
            )
        yield spinners
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()


def report_progress(tally: Tally, test: tuple[float, float] | None, began: float) -> None:
    estimate = sprt.estimate(tally.pair_points)
    line = (
        f"{len(tally.pair_points):4d} pairs  +{tally.wins} ={tally.draws} -{tally.losses}  "
        f"score {estimate.score:.3f}  Elo {estimate.elo:+.0f} "
        f"[{estimate.elo_low:+.0f}, {estimate.elo_high:+.0f}]"
    )
    if test is not None:
        lower, upper = sprt.bounds(0.05, 0.05)
        line += f"  LLR {sprt.llr(tally.pair_points, *test):+.2f} ({lower:.2f}, {upper:.2f})"
    print(f"{line}  {time.monotonic() - began:.0f} s", file=sys.stderr, flush=True)


def summary(
    tally: Tally,
    ours: Side,
    theirs: Side,
    size: int,
    rule: Rule,
    test: tuple[float, float] | None,
    decided: str | None,
) -> dict[str, object]:
    estimate = sprt.estimate(tally.pair_points)
    row: dict[str, object] = {
        "ours": ours.name,
        "theirs": theirs.name,
        "board": f"{size}x{size}",
        "rule": rule.value,
        "turn_ms": [ours.turn_ms, theirs.turn_ms],
        "pairs": estimate.pairs,
        "games": 2 * estimate.pairs,
        **scores(tally),
        "ours_timing": timing(tally.replies_ms[0], ours.turn_ms),
        "their_timing": timing(tally.replies_ms[1], theirs.turn_ms),
        "forfeits": tally.forfeits,
    }
    if test is not None:
        row["sprt"] = {
            "elo0": test[0],
            "elo1": test[1],
            "llr": round(sprt.llr(tally.pair_points, *test), 3),
            "bounds": [round(b, 3) for b in sprt.bounds(0.05, 0.05)],
            "verdict": decided,
        }
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--ours", default="brain", help="brain, brain@REV or a path (default: brain)"
    )
    parser.add_argument("--opponent", required=False, help="brain, brain@REV or a path")
    parser.add_argument("--size", type=int, default=15)
    parser.add_argument(
        "--rule",
        choices=[r.value for r in Rule],
        default=Rule.FREESTYLE.value,
    )
    parser.add_argument("--turn-ms", type=int, default=1000, help="our timeout_turn")
    parser.add_argument("--their-turn-ms", type=int, help="the opponent's (default: ours)")
    parser.add_argument("--match-ms", type=int, default=0, help="a match clock for each side")
    parser.add_argument("--pairs", type=int, default=32, help="opening pairs (two games each)")
    parser.add_argument("--sprt", help="elo0,elo1: stop when the sequential test decides")
    parser.add_argument("--openings", type=Path, default=OPENINGS / "decided.txt")
    parser.add_argument(
        "--forfeit-ms", type=int, default=5000, help="a reply this much past the turn loses"
    )
    parser.add_argument(
        "--nodes",
        type=int,
        default=0,
        help="each side's nodes a move (INFO max_node; the turn still caps it)",
    )
    parser.add_argument(
        "--pause-ms",
        type=int,
        default=round(PAUSE_SECONDS * 1000),
        help="the referee's wait before each move is asked for (Rapfi needs 30)",
    )
    parser.add_argument("--our-info", action="append", default=[], help="an INFO line for ours")
    parser.add_argument("--their-info", action="append", default=[], help="... for theirs")
    parser.add_argument("--games", type=Path, help="append every game (JSON lines) to this file")
    parser.add_argument("--workers", type=int, default=2, help="games at once")
    parser.add_argument(
        "--busy", type=int, default=0, metavar="N", help="N processes spinning meanwhile"
    )
    parser.add_argument(
        "--make-openings",
        type=int,
        metavar="N",
        help="write N new balanced openings to --openings and stop",
    )
    parser.add_argument(
        "--balance",
        type=float,
        default=0.25,
        help="with --make-openings: the largest score for the side to move (default 0.25)",
    )
    parser.add_argument(
        "--decided-by",
        metavar="STRONG_MS,WEAK_MS",
        help="with --make-openings: keep those this brain wins with both colours at "
        "STRONG_MS a turn against itself at WEAK_MS",
    )
    parser.add_argument(
        "--from",
        dest="source",
        type=Path,
        help="with --make-openings and --decided-by-nodes: judge this file's openings, in order",
    )
    parser.add_argument(
        "--decided-by-nodes",
        metavar="STRONG,WEAK",
        help="with --make-openings --from: keep those this brain wins with both colours at "
        "STRONG nodes a move against itself at WEAK",
    )
    parser.add_argument("--seed", type=int, default=27)
    args = parser.parse_args()

    if args.make_openings:
        rule = Rule(args.rule)
        count = args.make_openings
        if args.decided_by_nodes is not None:
            if args.source is None:
                parser.error("--decided-by-nodes judges the openings of a file: give --from")
            strong_nodes, weak_nodes = (int(n) for n in args.decided_by_nodes.split(","))
            if strong_nodes <= weak_nodes:
                parser.error("--decided-by-nodes STRONG,WEAK: STRONG must be the larger")
            source = read_openings(args.source)
            judged = decided_by_nodes(source, rule, strong_nodes, weak_nodes, args.workers)
            openings = judged[:count]
            how = f"of the {len(source)} in {args.source.name}, decided_by_nodes"
            how += f"({strong_nodes}, {weak_nodes})"
            kept = (
                f"won with both colours by this brain at {strong_nodes} nodes a move, itself at "
                f"{weak_nodes} ({len(judged)} of {len(source)})"
            )
        elif args.decided_by is None:
            openings = make_openings(count, args.seed, args.balance, 200_000, rule)
            how = f"make_openings(count={count}, seed={args.seed}, balance={args.balance}, "
            how += f"nodes=200000, rule={rule.value})"
            kept = f"each scored within {args.balance} of even on 15x15 {rule.value}"
        else:
            strong_ms, weak_ms = (int(ms) for ms in args.decided_by.split(","))
            if strong_ms <= weak_ms:
                parser.error("--decided-by STRONG_MS,WEAK_MS: STRONG_MS must be the longer")

            def candidates(seed: int) -> list[Opening]:
                return make_openings(2 * count, seed, args.balance, 200_000, rule)

            def judge(fresh: Sequence[Opening]) -> list[Opening]:
                return decided_by_time(fresh, rule, strong_ms, weak_ms, args.workers)

            openings, last = decided_openings(count, args.seed, candidates, judge)
            how = (
                f"make_openings(count={2 * count}, seeds {args.seed} to {last}, "
                f"balance={args.balance}, "
            )
            how += f"nodes=200000, rule={rule.value}), then decided_by_time({strong_ms}, {weak_ms})"
            kept = (
                f"each scored within {args.balance} of even on 15x15 {rule.value}, and won with "
                f"both colours by this brain at {strong_ms} ms a turn, itself at {weak_ms} ms"
            )
        lines = [" ".join(f"{dx},{dy}" for dx, dy in o) for o in openings]
        header = (
            f"# {len(lines)} openings: {how} in bench/match.py.\n# dx,dy from the "
            f"centre, in play order from the first player; {kept}.\n"
        )
        args.openings.write_text(header + "\n".join(lines) + "\n")
        print(f"wrote {len(lines)} openings to {args.openings}")
        return 0
    if args.opponent is None:
        parser.error("--opponent is required")
    test = None
    if args.sprt:
        elo0, elo1 = (float(x) for x in args.sprt.split(","))
        test = (elo0, elo1)
    rule = Rule(args.rule)
    openings = read_openings(args.openings)
    nodes = [f"max_node {args.nodes}"] if args.nodes else []
    with tempfile.TemporaryDirectory(prefix="match-") as scratch:
        ours = Side(
            args.ours,
            entrant(args.ours, Path(scratch)),
            args.turn_ms,
            tuple(f"INFO {i}" for i in [*nodes, *args.our_info]),
        )
        theirs = Side(
            args.opponent,
            entrant(args.opponent, Path(scratch)),
            args.their_turn_ms or args.turn_ms,
            tuple(f"INFO {i}" for i in [*nodes, *args.their_info]),
        )
        with busy_machine(args.busy):  # after the entrants: a brain@REV builds unloaded
            tally, decided = run_match(
                ours,
                theirs,
                args.size,
                rule,
                openings,
                args.pairs,
                test,
                args.forfeit_ms,
                args.match_ms,
                args.games,
                args.workers,
                args.pause_ms / 1000,
            )
    row = summary(tally, ours, theirs, args.size, rule, test, decided)
    row["busy"] = args.busy
    print(json.dumps({"match": row}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
