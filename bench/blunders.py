"""Where our lost games were lost, in a reference engine's eyes: which move
let the opponent's forced win in, whether a longer think would have avoided
it, and whether our engine can prove the wins the reference sees.

    R=/path/to/pbrain-rapfi
    .venv/bin/python bench/blunders.py GAMES.jsonl --reference $R --ours brain@main
    .venv/bin/python bench/blunders.py GAMES.jsonl --reference $R --ours brain@main \\
        --games 40 --alternatives --prove 1000000,10000000

GAMES.jsonl is what ``bench/gauntlet.py --games`` or ``bench/match.py
--games`` wrote; ``--ours`` picks our entrant's games by their "ours" field,
and the lost ones are analysed (the first ``--games`` of them). The reference
must report its search as Rapfi does under ``INFO show_detail 2``: ``INFO
EVAL`` (the side to move's view; ``+M13`` a win in 13 plies) and ``INFO
DEPTH`` before its move. It is asked about each position alone, a new
process each time with a turn of ``--turn-ms``.

1. Every position after the opening, both sides to move: the reference's
   value and move. For each side, a move's loss is the mover's value before
   it less its value after it (positions where neither side has a forced
   win), and how often the move played was the reference's own.
2. The first position of each game where the reference sees its forced win,
   and whether our move made it (the value before our move was not yet a
   loss) or the reference found it after a move of its own.
3. ``--alternatives``: at each position where our move made the loss, the
   reference's own move, checked with a turn of ``--check-ms``, and our
   brain's move (``--ours``, which must then name a brain this script can
   run: ``brain``, ``brain@REV`` or a path) at each multiple of the turn in
   ``--longer``, each checked the same way: did a non-losing move exist,
   and did more time find one? ``--longer-nodes`` and ``--check-nodes``
   ask for fixed counts of nodes instead (``INFO max_node``): the same
   answers on a busy machine.
4. ``--prove B1,B2``: at each first position where the reference sees its
   win, a search of this tree's engine with each node budget: does it prove
   the win too?
5. ``--threat-kinds NODES``: what the reference's winning moves are, from
   there to the game's end: its five, a four, a block of our five point, an
   open three (a cell then makes an open four), or a quiet move; a quiet move after
   which the reference, were it to move again, wins by continuous fours or
   by fours and threes (this engine's threat search, ``_core.big_threat_win``,
   NODES nodes each) is a threat of fours or of threes, the rest quiet.

Prints a summary, then one JSON object on the last line. Rapfi stays
outside the project: this script runs the binary it is given.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from local_server import REPO
from match import NODES_TURN_MS, entrant, opening_stones

sys.path.insert(0, str(REPO))

from service.engine import Engine, Rule, _core, move_outcome
from service.engine.score import Outcome
from tests.brain.manager import BrainProcess, Entrant, Game, brain, parse_move

GOMOCUP_RULE = {"freestyle": 0, "exact": 1, "renju": 4}  # INFO rule's numbers
MATE = 100_000  # a forced win in n plies is worth MATE - n, a loss -(MATE - n)
DECIDED = MATE // 2  # beyond this a value is a forced result
LABELS = {"ours": "our", "reference": "the reference's"}


def parse_eval(text: str) -> int:
    """The reference's ``INFO EVAL`` as a number: mates as +-(MATE - plies).

    >>> parse_eval("-27"), parse_eval("+M13"), parse_eval("-M8"), parse_eval("M5")
    (-27, 99987, -99992, 99995)
    """
    if "M" in text:
        plies = int(text.split("M", 1)[1])
        return -(MATE - plies) if text.startswith("-") else MATE - plies
    return int(text)


@dataclass(frozen=True)
class View:
    """What the reference said of one position (the side to move's view)."""

    move: tuple[int, int]
    value: int | None
    depth: int | None


@contextmanager
def started(
    engine: Entrant, size: int, rule: str, turn_ms: int, details: bool, nodes: int = 0
) -> Iterator[BrainProcess]:
    """A new process of ``engine``, started on the board with a turn of
    ``turn_ms``, its rule, with ``nodes`` a search of that many nodes
    (``INFO max_node``) and with ``details`` its search reported
    (``INFO show_detail 2``)."""
    with brain(engine.command, engine.env, engine.cwd, quiet=True) as process:
        if process.ask(f"START {size}") != "OK":
            raise SystemExit(f"{engine.command[0]}: START {size} refused")
        process.send(f"INFO timeout_turn {turn_ms}", f"INFO rule {GOMOCUP_RULE[rule]}")
        if nodes:
            process.send(f"INFO max_node {nodes}")
        if details:
            process.send("INFO show_detail 2")
        yield process


def ask(
    engine: Entrant,
    stones: Sequence[Sequence[int]],
    size: int,
    rule: str,
    turn_ms: int,
    details: bool,
    nodes: int = 0,
) -> View:
    """One position (stones in play order from X, side to move next) asked
    of a new process of ``engine``: its move, and with ``details`` its last
    reported value and depth. With ``nodes`` its search is that many nodes
    (``INFO max_node``; the turn, match.py's NODES_TURN_MS, only caps it),
    the same on a loaded machine."""
    turn = NODES_TURN_MS if nodes else turn_ms
    with started(engine, size, rule, turn, details, nodes) as process:
        return board_view(process, stones, turn / 1000 + 30)


def send_board(process: BrainProcess, stones: Sequence[Sequence[int]]) -> None:
    """A position (stones in play order from X, the side to move's sent as
    1) set with ``BOARD``, which asks the process for its move."""
    mine = len(stones) % 2
    lines = [f"{x},{y},{1 if i % 2 == mine else 2}" for i, (x, y) in enumerate(stones)]
    process.send("BOARD", *lines, "DONE")


def board_view(process: BrainProcess, stones: Sequence[Sequence[int]], timeout: float) -> View:
    """One position set on a started process (send_board()), and its answer:
    the move, and the last value and depth it reported (None where it
    reported none)."""
    send_board(process, stones)
    value = depth = None
    while True:
        line = process.answer(timeout=timeout)
        if line.startswith("INFO EVAL "):
            value = parse_eval(line.split()[2])
        elif line.startswith("INFO DEPTH "):
            depth = int(line.split()[2])
        elif not line.startswith("INFO"):
            return View(parse_move(line), value, depth)


@dataclass(frozen=True)
class LostGame:
    """One game our brain lost: its stones in play order and who moved when."""

    index: int
    size: int
    rule: str
    moves: tuple[tuple[int, int], ...]
    opening: int  # stones placed before the first reply
    ours_parity: int  # our moves are the plies of this parity

    def ours_at(self, ply: int) -> bool:
        return ply % 2 == self.ours_parity


def lost_games(records: Iterable[dict[str, object]], ours: str) -> list[LostGame]:
    """The games ``ours`` lost (``bench/match.py``'s record: ``winner`` is the
    entrant that made the row, 0 the one that moved first after the opening).

    >>> record = {"ours": "brain", "size": 15, "rule": "freestyle", "ours_first": False,
    ...           "moves": [[7, 7], [8, 8], [9, 9]], "replies_ms": [[5.0], [6.0]], "winner": 0}
    >>> [(g.opening, g.ours_parity, g.ours_at(2)) for g in lost_games([record], "brain")]
    [(1, 0, True)]
    """
    found: list[LostGame] = []
    for record in records:
        if record["ours"] != ours:
            continue
        ours_first = bool(record["ours_first"])
        if record["winner"] != (1 if ours_first else 0):
            continue
        moves = record["moves"]
        assert isinstance(moves, list)
        opening = opening_stones(record)
        size, rule = record["size"], record["rule"]
        assert isinstance(size, int) and isinstance(rule, str)
        found.append(
            LostGame(
                len(found),
                size,
                rule,
                tuple((int(x), int(y)) for x, y in moves),
                opening,
                opening % 2 if ours_first else (opening + 1) % 2,
            )
        )
    return found


def ours_view(game: LostGame, views: dict[int, View], ply: int) -> int | None:
    """The value of the position before ``ply`` for our side."""
    value = views[ply].value
    if value is None:
        return None
    return value if game.ours_at(ply) else -value


DIRECTIONS = ((1, 0), (0, 1), (1, 1), (1, -1))


def potential(stones: Sequence[Sequence[int]], cell: Sequence[int], side: int, size: int) -> int:
    """What ``cell`` is worth to ``side`` (0 X, 1 O) in lines of five: over
    the windows of five cells through it that hold none of the other side's
    stones, 4 to the power of ``side``'s stones in the window. A crude,
    engine-free measure: a move builds (its mover's potential there) and
    blocks (the other side's).

    >>> potential([(7, 7), (0, 0), (8, 7)], (9, 7), 0, 15)  # beside X's two in a row
    68
    >>> potential([(7, 7), (0, 0), (8, 7)], (9, 7), 1, 15)  # O: the 16 windows X leaves
    16
    """
    own = {(x, y) for i, (x, y) in enumerate(stones) if i % 2 == side}
    other = {(x, y) for i, (x, y) in enumerate(stones) if i % 2 != side}
    x, y = cell
    total = 0
    for dx, dy in DIRECTIONS:
        for start in range(-4, 1):
            window = [(x + (start + i) * dx, y + (start + i) * dy) for i in range(5)]
            if all(0 <= a < size and 0 <= b < size for a, b in window) and not other.intersection(
                window
            ):
                total += 4 ** len(own.intersection(window))
    return total


def build_and_block(games: Sequence[LostGame], views: dict[int, dict[int, View]]) -> dict[str, int]:
    """Where our move was not the reference's (and neither side had a forced
    win): how often the reference's move blocked more of the other side's
    lines than ours, and how often ours built more of our own than its."""
    positions = blocks_more = builds_more = 0
    for game in games:
        for ply, view in views[game.index].items():
            played = game.moves[ply]
            if not game.ours_at(ply) or view.value is None or abs(view.value) >= DECIDED:
                continue
            if view.move == played:
                continue
            stones, me = game.moves[:ply], ply % 2
            positions += 1
            theirs, ours = view.move, played
            blocks_more += potential(stones, theirs, 1 - me, game.size) > potential(
                stones, ours, 1 - me, game.size
            )
            builds_more += potential(stones, ours, me, game.size) > potential(
                stones, theirs, me, game.size
            )
    return {
        "positions": positions,
        "reference_blocks_more": blocks_more,
        "ours_builds_more": builds_more,
    }


def move_losses(
    games: Sequence[LostGame], views: dict[int, dict[int, View]]
) -> dict[str, dict[str, float]]:
    """For our moves and the reference's: the value each move lost for its
    mover, and how often it was the reference's own choice."""
    losses: dict[bool, list[int]] = {True: [], False: []}
    same: dict[bool, list[bool]] = {True: [], False: []}
    for game in games:
        seen = views[game.index]
        for ply in range(game.opening, len(game.moves) - 1):
            before, after = seen.get(ply), seen.get(ply + 1)
            if before is None or after is None or before.value is None or after.value is None:
                continue
            ours = game.ours_at(ply)
            same[ours].append(before.move == game.moves[ply])
            if abs(before.value) < DECIDED and abs(after.value) < DECIDED:
                losses[ours].append(before.value + after.value)
    summary = {}
    for ours, name in ((True, "ours"), (False, "reference")):
        values = losses[ours]
        summary[name] = {
            "moves": len(values),
            "mean_loss": round(statistics.mean(values), 1) if values else 0.0,
            "median_loss": statistics.median(values) if values else 0.0,
            "reference_choice": round(sum(same[ours]) / len(same[ours]), 3) if same[ours] else 0.0,
        }
    return summary


@dataclass(frozen=True)
class Turn:
    """Where a lost game turned: the first position the reference sees won."""

    game: LostGame
    ply: int  # the reference to move, its win seen
    by_our_move: bool  # the position before it (our move) was not yet lost
    value: int  # the reference's value there: MATE less the win's plies
    our_moves_before: int  # our moves from the opening up to that one


def turning_points(games: Sequence[LostGame], views: dict[int, dict[int, View]]) -> list[Turn]:
    turns = []
    for game in games:
        seen = views[game.index]
        for ply in range(game.opening, len(game.moves)):
            view = seen.get(ply)
            if view is None or view.value is None or game.ours_at(ply):
                continue
            if view.value > DECIDED:
                before = ours_view(game, seen, ply - 1) if ply - 1 in seen else None
                by_our_move = before is not None and before > -DECIDED
                ours_before = sum(game.ours_at(p) for p in range(game.opening, ply))
                turns.append(Turn(game, ply, by_our_move, view.value, ours_before))
                break
    return turns


def view_key(game: LostGame, ply: int, turn_ms: int) -> str:
    """A position and the reference's turn, as ``--views`` keys them."""
    stones = ";".join(f"{x},{y}" for x, y in game.moves[:ply])
    return f"{game.size}/{game.rule}/{turn_ms}/{stones}"


def read_views(path: Path) -> dict[str, View]:
    if not path.exists():
        return {}
    found = {}
    for line in path.read_text().splitlines():
        record = json.loads(line)
        found[record["key"]] = View(tuple(record["move"]), record["value"], record["depth"])
    return found


def write_views(path: Path, views: dict[str, View]) -> None:
    path.write_text(
        "".join(
            json.dumps({"key": key, "move": v.move, "value": v.value, "depth": v.depth}) + "\n"
            for key, v in views.items()
        )
    )


def prove(game: LostGame, ply: int, budget: int) -> tuple[bool, int]:
    """Whether this tree's engine, on a new table, proves a win for the side
    to move before ``ply`` within ``budget`` nodes, and the depth its search
    reached."""
    board = Game(game.size, Rule(game.rule), 0, moves=list(game.moves[:ply])).board()
    analysis = Engine().search(board, node_budget=budget)
    return move_outcome(analysis.moves[0]) is Outcome.WIN, analysis.depth


THREAT_KINDS = ("five", "four", "block", "three", "fours threat", "threes threat", "quiet")
CORE_RULE = {"freestyle": 0, "exact": 1, "renju": 2}  # analyze_big's rule numbers


def threat_kind(game: LostGame, ply: int, nodes: int) -> str:
    """What the move at ``ply`` is for its mover (one of THREAT_KINDS); the
    game's last move, the reference's row, is its five."""
    if ply == len(game.moves) - 1:
        return "five"
    sets = sets_before(game, ply + 1)
    me = ply % 2  # sets: five, flex4, four and three cells, X's then O's for each
    if sets[me]:
        return "four"
    if sets_before(game, ply)[1 - me]:
        return "block"
    if sets[2 + me]:
        return "three"
    return ("quiet", "fours threat", "threes threat")[threat_win(game, ply + 1, me, nodes)]


def cells_before(game: LostGame, ply: int) -> list[int]:
    """The cells of the first ``ply`` moves, as the core numbers them."""
    return cells_of(game.size, game.moves[:ply])


def cells_of(size: int, moves: Iterable[Sequence[int]]) -> list[int]:
    """Moves (x, y) as the core numbers their cells."""
    return [x * size + y for x, y in moves]


def threat_win(game: LostGame, ply: int, mover: int, nodes: int) -> int:
    """Our threat search's win for ``mover`` (0 X, 1 O) to move after the
    first ``ply`` moves: 0 none found, 1 by fours, 2 by fours and threes."""
    size = game.size
    x, o = stone_bytes(size, cells_before(game, ply))
    rule = CORE_RULE[game.rule]
    kind: int = _core.big_threat_win(size, size, 5, rule, x, o, mover == 0, nodes)[0]
    return kind


def stone_bytes(size: int, cells: Sequence[int]) -> tuple[bytes, bytes]:
    """X's and O's stones (cells in play order from X) as the core's big-board
    functions take them: a little-endian bitboard each."""
    nbytes = (size * size + 7) // 8
    x = sum(1 << c for c in cells[0::2]).to_bytes(nbytes, "little")
    o = sum(1 << c for c in cells[1::2]).to_bytes(nbytes, "little")
    return x, o


def sets_before(game: LostGame, ply: int) -> list[list[int]]:
    """The big board's sets before the move at ``ply``."""
    size, cells = game.size, cells_before(game, ply)
    return list(_core.big_board(size, size, 5, CORE_RULE[game.rule], cells)[1])


def threat_kinds(turns: Sequence[Turn], nodes: int) -> dict[str, dict[str, int]]:
    """The kinds of the reference's moves from each turning point to the end
    ("all"), and of the first of them ("first"); and how many of the
    positions before them our threat search proves won for the reference
    ("proven": of all of them, and of the turning points)."""
    counts = {"all": dict.fromkeys(THREAT_KINDS, 0), "first": dict.fromkeys(THREAT_KINDS, 0)}
    proven = {"positions": 0, "won": 0, "turning_points": 0, "turning_points_won": 0}
    for turn in turns:
        game = turn.game
        for ply in range(turn.ply, len(game.moves)):
            if not game.ours_at(ply):
                kind = threat_kind(game, ply, nodes)
                counts["all"][kind] += 1
                counts["first"][kind] += ply == turn.ply
                won = threat_win(game, ply, ply % 2, nodes) > 0
                proven["positions"] += 1
                proven["won"] += won
                proven["turning_points"] += ply == turn.ply
                proven["turning_points_won"] += won and ply == turn.ply
    return {**counts, "proven": proven}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games_file", type=Path)
    parser.add_argument("--reference", required=True)
    parser.add_argument("--ours", default="brain@main")
    parser.add_argument("--games", type=int, default=40, help="lost games analysed")
    parser.add_argument("--turn-ms", type=int, default=1500)
    parser.add_argument("--check-ms", type=int, default=3000)
    parser.add_argument("--alternatives", action="store_true")
    parser.add_argument("--longer", default="1,4,16", help="multiples of --turn-ms for ours")
    parser.add_argument(
        "--longer-nodes",
        default="",
        help="node counts for ours instead of --longer, comma-separated (INFO max_node)",
    )
    parser.add_argument(
        "--check-nodes",
        type=int,
        default=0,
        help="the reference's check at this many nodes instead of --check-ms",
    )
    parser.add_argument("--prove", default="", help="node budgets, comma-separated")
    parser.add_argument(
        "--threat-kinds",
        type=int,
        default=0,
        metavar="NODES",
        help="classify the reference's winning moves, NODES nodes a threat search",
    )
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--views", type=Path, help="a file of the reference's views, read if it exists and written"
    )
    args = parser.parse_args()

    records = [json.loads(line) for line in args.games_file.read_text().splitlines()]
    games = lost_games(records, args.ours)[: args.games]
    if not games:
        raise SystemExit(f"{args.games_file}: no game lost by {args.ours}")
    scratch = Path(tempfile.mkdtemp(prefix="blunders-"))
    reference = entrant(args.reference, scratch)

    jobs = [(g, ply) for g in games for ply in range(g.opening, len(g.moves))]
    views: dict[int, dict[int, View]] = {g.index: {} for g in games}
    known = read_views(args.views) if args.views else {}

    def view_of(job: tuple[LostGame, int]) -> View:
        game, ply = job
        key = view_key(game, ply, args.turn_ms)
        if key not in known:
            known[key] = ask(reference, game.moves[:ply], game.size, game.rule, args.turn_ms, True)
        return known[key]

    with ThreadPoolExecutor(args.workers) as pool:
        for (game, ply), view in zip(jobs, pool.map(view_of, jobs), strict=True):
            views[game.index][ply] = view
    if args.views:
        write_views(args.views, known)
    losses = move_losses(games, views)
    styles = build_and_block(games, views)
    turns = turning_points(games, views)
    by_ours = [t for t in turns if t.by_our_move]
    before = [t.our_moves_before for t in by_ours]
    print(f"{len(games)} lost games of {args.ours}; the reference at {args.turn_ms} ms a position")
    for name, row in losses.items():
        print(
            f"  {LABELS[name]} moves: mean loss {row['mean_loss']}, median {row['median_loss']} "
            f"({row['moves']} moves); the reference's own choice {row['reference_choice']:.0%}"
        )
    print(
        f"  where our move was not the reference's ({styles['positions']} positions), its move "
        f"blocked more of the other side's lines in {styles['reference_blocks_more']}, ours "
        f"built more of our own in {styles['ours_builds_more']} (bench/blunders.py's potential())"
    )
    print(
        f"  the reference saw its win in {len(turns)} games: after our move in {len(by_ours)} "
        f"(our moves until then: median {statistics.median(before) if before else '-'}), "
        f"after its own in {len(turns) - len(by_ours)}"
    )
    depths = [turn_view.depth for t in turns if (turn_view := views[t.game.index][t.ply]).depth]
    if depths:
        print(
            f"  the reference's search there reached depth {statistics.median(depths):g} (median)"
        )
    plies = sorted(MATE - t.value for t in turns)
    if plies:
        print(
            f"  its wins then: {plies[0]} to {plies[-1]} plies long, "
            f"median {statistics.median(plies):g}"
        )
    summary: dict[str, object] = {
        "games": len(games),
        "turn_ms": args.turn_ms,
        "moves": losses,
        "build_and_block": styles,
        "wins_seen": len(turns),
        "after_our_move": len(by_ours),
        "our_moves_before": before,
        "win_plies": plies,
    }

    if args.alternatives and by_ours:
        ours = entrant(args.ours, scratch)
        # Each of our searches: a key of the row, how it is told, its turn and its nodes.
        if args.longer_nodes:
            searches = [
                (f"ours_n{n}", f"{int(n):,} nodes", 0, int(n)) for n in args.longer_nodes.split(",")
            ]
        else:
            searches = [
                (f"ours_x{m}", f"{m}x the turn", args.turn_ms * int(m), 0)
                for m in args.longer.split(",")
            ]

        def check(game: LostGame, ply: int, move: tuple[int, int]) -> int:
            """Our value after ``move`` at ``ply``, by the reference's longer look."""
            after = (*game.moves[:ply], move)
            view = ask(
                reference, after, game.size, game.rule, args.check_ms, True, args.check_nodes
            )
            return -(view.value if view.value is not None else 0)

        def alternatives(turn: Turn) -> dict[str, int]:
            game, ply = turn.game, turn.ply - 1
            own = views[game.index][ply].move
            row = {"reference": check(game, ply, own)}
            for key, _, turn_ms, nodes in searches:
                mine = ask(ours, game.moves[:ply], game.size, game.rule, turn_ms, False, nodes)
                row[key] = check(game, ply, mine.move)
            return row

        with ThreadPoolExecutor(args.workers) as pool:
            rows = list(pool.map(alternatives, by_ours))
        holding = [r for r in rows if r["reference"] > -DECIDED]
        checked = f"{args.check_nodes:,} nodes" if args.check_nodes else f"{args.check_ms} ms"
        print(
            f"  of the {len(rows)} positions our move lost, the reference's own move holds in "
            f"{len(holding)} (checked at {checked})"
        )
        found_by: dict[str, int] = {}
        for key, how, _, _ in searches:
            found_by[key] = sum(r[key] > -DECIDED for r in holding)
            print(f"    there, ours at {how} holds in {found_by[key]}")
        summary["alternatives"] = {"positions": len(rows), "holding": len(holding), **found_by}

    if args.prove:
        budgets = [int(b) for b in args.prove.split(",")]
        proven: dict[str, int] = {}
        for budget in budgets:
            found = [prove(t.game, t.ply, budget) for t in turns]
            proven[str(budget)] = sum(won for won, _ in found)
            depth = statistics.median(d for _, d in found) if found else 0
            print(
                f"  our engine proves {proven[str(budget)]} of those {len(turns)} wins at "
                f"{budget:,} nodes (its search's depth there: median {depth:g})"
            )
        summary["proven"] = proven
    if args.threat_kinds:
        kinds = threat_kinds(turns, args.threat_kinds)
        for key, label in (("all", "moves from its win seen to the end"), ("first", "first moves")):
            print(
                f"  the reference's {sum(kinds[key].values())} {label}: "
                + ", ".join(f"{kind} {count}" for kind, count in kinds[key].items())
            )
        proven = kinds["proven"]
        print(
            f"  our threat search proves the reference's win before {proven['won']} of those "
            f"{proven['positions']} moves, {proven['turning_points_won']} of the "
            f"{proven['turning_points']} first"
        )
        summary["threat_kinds"] = kinds
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
