"""Playing strength on big boards: the service's brain in matches against
baselines, from varied openings, both colours, over the Gomocup protocol.

    .venv/bin/python bench/strength.py                       # every opponent
    .venv/bin/python bench/strength.py --opponents previous --previous HEAD~3 --openings 20

Opponents (each a brain process, refereed by ``tests/brain/manager.py``):

* ``previous``: this brain at another revision (``--previous``; HEAD, or HEAD~1
  when the working tree is clean), its core built from that revision's sources;
* ``pattern``: a 1-ply pattern player (``bench/players/pattern.py``);
* ``depth2``: this engine searching two plies, without threat proofs
  (``INFO max_depth 2``);
* ``terminal``: the public ``gomoku-terminal`` program's hardest level, an
  alpha-beta minimax over patterns (``bench/players/terminal.py``);
* ``threat-space``: the public ``gomoku`` program, threat-space search and a
  pattern score (``bench/players/threat_space.py``; 15x15 freestyle only).

Each opening (two to five stones near the centre, from a fixed seed, that this
engine scores near even: see openings()) is played twice, the service's brain
to move first once and second once. Both sides of
a game get the same ``timeout_turn``; the programs that do not read it take
what they take, and the report gives each side's mean time per move. Two games
run at once (one per core). Score: 1 a win, 1/2 a full board, 0 a loss;
the Elo difference follows from the score, with a 95% interval from the
games' spread. Prints a table and one JSON line; exits 1 when the service
scores below TARGET_SCORE against a public program.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from core_ab import export, setup_extension
from local_server import REPO

sys.path.insert(0, str(REPO))  # the tests' Gomocup manager referees

from service.engine import Board, Engine, Rule
from tests.brain.manager import BRAIN, Entrant, Game, play

PLAYERS = REPO / "bench" / "players"
TOOLS = REPO / ".tools" / "bench"
PUBLIC = ("terminal", "threat-space")
TARGET_SCORE = 0.75
BALANCE = 0.25  # an opening's score for the side to move, at most this far from even
BALANCE_NODES = 200_000


@dataclass(frozen=True)
class Opponent:
    name: str
    entrant: Entrant
    infos: tuple[str, ...] = ()
    sizes: tuple[int, ...] = (15, 20)
    rules: tuple[Rule, ...] = (Rule.FREESTYLE, Rule.EXACT)


def player_script(script: str, package: Path | None) -> Entrant:
    path = [str(PLAYERS), str(REPO)]
    if package is not None:
        path.insert(0, str(package))
    env = {"PYTHONPATH": ":".join(path), "PATH": "/usr/bin:/bin"}
    return Entrant((sys.executable, str(PLAYERS / script)), env, quiet=True)


def previous_brain(revision: str, scratch: Path) -> Entrant:
    """The brain of ``revision``: its service package, its core built in place."""
    here = scratch / "previous"
    here.mkdir()
    export(revision, here, ("setup.py", "service"))
    if not any((here / "service" / name).exists() for name in ("brain.py", "brain")):
        raise SystemExit(f"{revision} has no brain (service/brain)")
    sources, flags = setup_extension(here / "setup.py")
    library = here / "service" / "engine" / f"_core{sysconfig.get_config_var('EXT_SUFFIX')}"
    command = [
        *str(sysconfig.get_config_var("CC")).split(),
        *str(sysconfig.get_config_var("CFLAGS")).split(),
        *str(sysconfig.get_config_var("CCSHARED")).split(),
        *flags,
        f"-I{sysconfig.get_paths()['include']}",
        "-shared",
        *(str(here / source) for source in sources),
        "-o",
        str(library),
    ]
    subprocess.run(command, check=True)
    return Entrant(BRAIN, {"PYTHONPATH": str(here), "PATH": "/usr/bin:/bin"}, here)


def openings(
    count: int,
    size: int,
    rule: Rule,
    seed: int,
    balance: float = BALANCE,
    nodes: int = BALANCE_NODES,
) -> list[list[tuple[int, int]]]:
    """Balanced openings: two to five stones within three cells of the centre,
    alternating from X, that this engine scores within ``balance`` of even for
    the side to move (a search of ``nodes`` nodes, from a fresh table, so the
    list depends only on the seed)."""
    rng = random.Random(seed)
    centre = size // 2
    found: list[list[tuple[int, int]]] = []
    while len(found) < count:
        stones: list[tuple[int, int]] = []
        for _ in range(rng.randint(2, 5)):
            while (stone := (centre + rng.randint(-3, 3), centre + rng.randint(-3, 3))) in stones:
                pass
            stones.append(stone)
        board = Board.from_moves([y * size + x for x, y in stones], rows=size, rule=rule)
        if stones in found or board.is_game_over():
            continue
        analysis = Engine(node_budget=nodes, table_bytes=16 << 20).analyze(board)
        if analysis.outcome is None and abs(analysis.best_score) <= balance:
            found.append(stones)
    return found


@dataclass
class Result:
    points: list[float]
    own_ms: list[float]
    their_ms: list[float]
    forfeits: list[str]
    games: list[dict[str, object]]

    @property
    def score(self) -> float:
        return statistics.fmean(self.points)

    def elo(self) -> tuple[float, float, float]:
        """The Elo difference and its 95% interval."""
        n = len(self.points)
        spread = statistics.pstdev(self.points) / math.sqrt(n) if n > 1 else 0.5
        return _elo(self.score), _elo(self.score - 1.96 * spread), _elo(self.score + 1.96 * spread)


def _elo(score: float) -> float:
    score = min(max(score, 0.001), 0.999)
    return -400 * math.log10(1 / score - 1)


def match(
    opponent: Opponent, size: int, rule: Rule, turn_ms: int, starts: list[list[tuple[int, int]]]
) -> Result:
    ours = Entrant(BRAIN)
    theirs = opponent.entrant
    games: list[tuple[bool, list[tuple[int, int]]]] = [
        (first, opening) for opening in starts for first in (True, False)
    ]

    def one(game: tuple[bool, list[tuple[int, int]]]) -> tuple[bool, Game]:
        first, opening = game
        # Entrant 0 moves first after the opening.
        pair = (ours, theirs) if first else (theirs, ours)
        infos = (opponent.infos, ()) if not first else ((), opponent.infos)
        return first, play(size, rule, turn_ms, pair, opening, infos=infos)

    result = Result([], [], [], [], [])
    with ThreadPoolExecutor(max_workers=2) as pool:
        for first, game in pool.map(one, games):
            us = 0 if first else 1
            if game.winner is None:
                result.points.append(0.5)
            else:
                result.points.append(1.0 if game.winner == us else 0.0)
            result.own_ms += game.replies_ms[us]
            result.their_ms += game.replies_ms[1 - us]
            if game.forfeit:
                result.forfeits.append(game.forfeit)
            result.games.append(
                {
                    "opponent": opponent.name,
                    "size": size,
                    "rule": rule.value,
                    "service_first": first,
                    "moves": game.moves,
                    "points": result.points[-1],
                    "forfeit": game.forfeit,
                }
            )
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--opponents", default="previous,pattern,depth2,terminal,threat-space")
    parser.add_argument("--previous", default=None, help="a git revision (default: see above)")
    parser.add_argument("--openings", type=int, default=8)
    parser.add_argument("--turn-ms", type=int, default=300)
    parser.add_argument("--seed", type=int, default=18)
    parser.add_argument("--games", type=Path, help="append every game (JSON lines) to this file")
    args = parser.parse_args()
    clean = not subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=no"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    revision = args.previous or ("HEAD~1" if clean else "HEAD")
    rows = []
    missed = []
    with tempfile.TemporaryDirectory(prefix="strength-") as scratch:
        catalogue = {
            "pattern": lambda: Opponent("pattern", player_script("pattern.py", None)),
            "depth2": lambda: Opponent("depth2", Entrant(BRAIN), ("INFO max_depth 2",)),
            "previous": lambda: Opponent(
                f"previous ({revision})", previous_brain(revision, Path(scratch))
            ),
            "terminal": lambda: Opponent(
                "terminal",
                player_script("terminal.py", TOOLS / "gomoku-terminal"),
                rules=(Rule.FREESTYLE,),
            ),
            "threat-space": lambda: Opponent(
                "threat-space",
                player_script("threat_space.py", TOOLS / "gomoku"),
                sizes=(15,),
                rules=(Rule.FREESTYLE,),
            ),
        }
        for name in args.opponents.split(","):
            opponent = catalogue[name]()
            for size in opponent.sizes:
                for rule in opponent.rules:
                    starts = openings(args.openings, size, rule, args.seed)
                    began = time.perf_counter()
                    result = match(opponent, size, rule, args.turn_ms, starts)
                    elo, low, high = result.elo()
                    row = {
                        "opponent": opponent.name,
                        "board": f"{size}x{size}",
                        "rule": rule.value,
                        "games": len(result.points),
                        "score": round(result.score, 3),
                        "elo": round(elo),
                        "elo_95": [round(low), round(high)],
                        "ms_per_move": round(statistics.fmean(result.own_ms)),
                        "longest_ms": round(max(result.own_ms)),
                        "replies_over_turn": sum(ms > args.turn_ms for ms in result.own_ms),
                        "their_ms_per_move": round(statistics.fmean(result.their_ms)),
                        "forfeits": result.forfeits,
                        "seconds": round(time.perf_counter() - began),
                    }
                    rows.append(row)
                    print(
                        f"{opponent.name:>22} {size}x{size} {rule.value:>9}: "
                        f"{row['score']:.3f} of {row['games']} games, Elo {row['elo']:+d} "
                        f"[{row['elo_95'][0]:+d}, {row['elo_95'][1]:+d}], "
                        f"{row['ms_per_move']} ms/move against {row['their_ms_per_move']} "
                        f"(longest {row['longest_ms']} ms, "
                        f"{row['replies_over_turn']} over the turn)",
                        flush=True,
                    )
                    if args.games is not None:
                        with args.games.open("a") as out:
                            out.writelines(json.dumps(game) + "\n" for game in result.games)
                    if name in PUBLIC and result.score < TARGET_SCORE:
                        missed.append(f"{opponent.name} {size}x{size}: {result.score:.3f}")
    print(json.dumps({"strength": rows, "turn_ms": args.turn_ms, "missed": missed}))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
