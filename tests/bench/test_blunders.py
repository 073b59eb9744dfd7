"""bench/blunders.py: the reference engine's view of a position, read from
its search reports, and where a lost game turned."""

from __future__ import annotations

import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.bench.test_match import bench_module
from tests.brain.manager import Entrant

# A reference that reports its search as Rapfi does under INFO show_detail 2:
# its value is the stone count's, a win in 7 once five stones are down.
FAKE_REFERENCE = """
import sys
stones = None
depth = 9  # or the node count it was given
for line in sys.stdin:
    line = line.strip()
    if line.startswith("START"):
        print("OK", flush=True)
    elif line.startswith("INFO max_node"):
        depth = int(line.split()[2])
    elif line == "BOARD":
        stones = []
    elif line == "DONE":
        print("INFO DEPTH 1", "INFO EVAL 12", "INFO DEPTH " + str(depth), sep="\\n")
        print("INFO EVAL " + ("+M7" if len(stones) >= 5 else str(-10 * len(stones))))
        print("MESSAGE thinking done")
        print("0,0" if "0,0,1" not in stones and "0,0,2" not in stones else "1,1", flush=True)
        stones = None
    elif stones is not None:
        stones.append(line)
    elif line == "END":
        break
"""


@pytest.fixture(scope="module")
def blunders() -> ModuleType:
    return bench_module("blunders")


@pytest.fixture
def reference(tmp_path: Path) -> Entrant:
    script = tmp_path / "reference.py"
    script.write_text(FAKE_REFERENCE)
    return Entrant((sys.executable, str(script)), quiet=True)


def test_the_reference_is_read_to_its_last_report(blunders: ModuleType, reference: Entrant) -> None:
    view = blunders.ask(reference, [(7, 7), (8, 8), (9, 9)], 15, "freestyle", 100, True)
    assert view == blunders.View((0, 0), -30, 9)
    won = blunders.ask(reference, [(0, 0), (1, 2), (2, 2), (3, 3), (4, 4)], 15, "exact", 100, True)
    assert won == blunders.View((1, 1), blunders.MATE - 7, 9)


def test_a_count_of_nodes_is_sent_as_max_node(blunders: ModuleType, reference: Entrant) -> None:
    """(The fake reports the count it was given as its depth.)"""
    view = blunders.ask(reference, [(7, 7), (8, 8), (9, 9)], 15, "freestyle", 100, True, 40000)
    assert view == blunders.View((0, 0), -30, 40000)


def game(blunders: ModuleType, ours_first: bool, winner: int) -> dict[str, object]:
    """A record as bench/match.py writes it: 3 opening stones, then 6 replies."""
    moves = [[7, 7], [8, 8], [9, 9], [1, 1], [2, 2], [3, 3], [4, 4], [5, 5], [6, 6]]
    return {
        "ours": "brain",
        "size": 15,
        "rule": "freestyle",
        "ours_first": ours_first,
        "moves": moves,
        "replies_ms": [[1.0] * 3, [1.0] * 3],
        "winner": winner,
    }


def test_only_our_lost_games_are_taken(blunders: ModuleType) -> None:
    records = [
        game(blunders, True, 1),  # lost: the other entrant made the row
        game(blunders, True, 0),  # won
        game(blunders, False, 0),  # lost
        {**game(blunders, True, 1), "ours": "brain@other"},
    ]
    games = blunders.lost_games(records, "brain")
    assert [(g.opening, g.ours_parity) for g in games] == [(3, 1), (3, 0)]
    assert [g.ours_at(3) for g in games] == [True, False]


def test_the_turn_is_the_first_position_the_reference_sees_won(blunders: ModuleType) -> None:
    (lost,) = blunders.lost_games([game(blunders, True, 1)], "brain")
    view = blunders.View
    win = blunders.MATE - 9
    # Our moves are plies 3, 5 and 7; the values are the side to move's.
    views = {
        lost.index: {
            3: view((1, 1), -40, 9),  # ours: -40
            4: view((2, 2), 100, 9),  # theirs: ours -100, so our move lost 60
            5: view((0, 0), -90, 9),  # theirs played as the reference would: lost 10
            6: view((3, 3), win, 9),  # our move let the win in
            7: view((5, 5), -win, 9),
            8: view((6, 6), win, 9),
        }
    }
    (turn,) = blunders.turning_points([lost], views)
    assert (turn.ply, turn.by_our_move, turn.our_moves_before) == (6, True, 2)
    assert blunders.MATE - turn.value == 9  # a win in 9 plies
    losses = blunders.move_losses([lost], views)
    assert losses["ours"]["moves"] == 1 and losses["ours"]["mean_loss"] == 60
    assert losses["reference"]["mean_loss"] == 10
    assert losses["ours"]["reference_choice"] == pytest.approx(2 / 3, abs=0.001)
    assert losses["reference"]["reference_choice"] == pytest.approx(1 / 2)
    # Had the reference seen the win only after its own move, the turn is its.
    views[lost.index][5] = view((0, 0), -win, 9)
    views[lost.index][6] = view((3, 3), win, 9)
    views[lost.index][4] = view((2, 2), win - 2, 9)
    (turn,) = blunders.turning_points([lost], views)
    assert (turn.ply, turn.by_our_move) == (4, True)
    views[lost.index][3] = view((1, 1), -(win - 1), 9)
    (turn,) = blunders.turning_points([lost], views)
    assert (turn.ply, turn.by_our_move) == (4, False)


def test_a_move_builds_its_own_lines_and_blocks_the_others(blunders: ModuleType) -> None:
    (lost,) = blunders.lost_games([game(blunders, True, 1)], "brain")
    view = blunders.View
    # At ply 3 (ours, O to move; X holds 7,7 and 9,9, O 8,8 between them) we
    # played (1, 1) in a corner; the reference would have taken (10, 10),
    # beside X's 9,9: it blocks more of X's lines, ours builds no more of O's.
    views = {lost.index: {3: view((10, 10), -50, 9), 5: view((3, 3), -60, 9)}}
    styles = blunders.build_and_block([lost], views)
    # Ply 5's move (3, 3) is the reference's own: not counted.
    assert styles == {"positions": 1, "reference_blocks_more": 1, "ours_builds_more": 0}


def test_the_views_file_keeps_what_the_reference_said(blunders: ModuleType, tmp_path: Path) -> None:
    (lost,) = blunders.lost_games([game(blunders, True, 1)], "brain")
    views = {
        blunders.view_key(lost, 3, 1000): blunders.View((1, 2), -99987, 9),
        blunders.view_key(lost, 4, 1000): blunders.View((0, 0), None, None),
    }
    path = tmp_path / "views.jsonl"
    blunders.write_views(path, views)
    assert blunders.read_views(path) == views
    assert blunders.read_views(tmp_path / "none.jsonl") == {}
    assert blunders.view_key(lost, 3, 1000) != blunders.view_key(lost, 3, 300)


def test_the_references_moves_are_told_apart_by_the_threats_they_make(blunders: ModuleType) -> None:
    # Ours is X (even plies). O answers X's four (block), builds two twos
    # whose crossing (3, 7) would make two threes (a threat of threes), makes
    # them, then an open four and the row.
    moves = [
        (12, 10), (3, 4), (12, 11), (3, 5), (12, 12), (12, 9), (12, 13), (12, 14),
        (0, 14), (5, 7), (1, 14), (6, 7), (2, 14), (3, 7), (3, 6), (4, 7), (2, 7), (7, 7),
    ]  # fmt: skip
    lost = blunders.LostGame(0, 15, "freestyle", tuple(moves), 1, 0)
    kinds = {ply: blunders.threat_kind(lost, ply, 100_000) for ply in (5, 7, 11, 13, 15, 17)}
    assert kinds == {
        5: "quiet",
        7: "block",
        11: "threes threat",
        13: "three",
        15: "four",
        17: "five",
    }
    turn = blunders.Turn(lost, 11, True, blunders.MATE - 7, 5)
    counted = blunders.threat_kinds([turn], 100_000)
    assert {k: n for k, n in counted["all"].items() if n} == {
        "threes threat": 1,
        "three": 1,
        "four": 1,
        "five": 1,
    }
    assert {k: n for k, n in counted["first"].items() if n} == {"threes threat": 1}
    # Our threat search proves O's win before each of its moves from ply 11
    # on (before ply 11 already: O had more than the one threat); before ply
    # 13 X's three in column 14 makes fours that O's blocks answer while its
    # own three stands.
    assert counted["proven"] == {
        "positions": 4,
        "won": 4,
        "turning_points": 1,
        "turning_points_won": 1,
    }
    assert [blunders.threat_win(lost, ply, 1, 100_000) for ply in (11, 13, 15, 17)] == [2, 2, 1, 1]
