"""The Gomocup brain driven through pipes, as a manager does: in process
through the extension (``run``), and as ``python -m service.brain``."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from service.engine import Rule
from tests.brain.manager import Entrant, brain, parse_move, play, run
from tests.brain.tables import Clock


def test_about_names_the_brain() -> None:
    (answer,) = run("ABOUT")
    assert answer.startswith('name="tictactoe-service", version="')


# Sessions and the answers they get, None: one answer whatever it is
# (test_native.py plays them to the executables too).
LINES_AND_ANSWERS: list[tuple[list[str], list[str] | None]] = [
    (["START 15"], ["OK"]),
    (["START 20"], ["OK"]),
    (["RECTSTART 20,15"], ["OK"]),
    (["START 21"], ["ERROR unsupported size 21x21: sides 3 to 20"]),
    (["START 2"], ["ERROR unsupported size 2x2: sides 3 to 20"]),
    (
        ["START fifteen"],
        ["ERROR START takes the board's size, or its width and height; got 'fifteen'"],
    ),
    (["START 15 15"], ["OK"]),  # Yixin-Board's opening
    (["START 20 15", "TURN 20,14"], ["OK", "ERROR 20,14 is off the 20x15 board"]),
    (["START 15 21"], ["ERROR unsupported size 15x21: sides 3 to 20"]),
    (["START 15 x"], ["ERROR START takes the board's size, or its width and height; got 'x'"]),
    (["RECTSTART 20"], ["ERROR RECTSTART takes width,height; got '20'"]),
    (["BEGIN"], ["ERROR no game: send START first"]),
    (["TURN 7,7"], ["ERROR no game: send START first"]),
    (["START 15", "TURN 15,0"], ["OK", "ERROR 15,0 is off the 15x15 board"]),
    (["START 15", "TURN 7"], ["OK", "ERROR TURN takes x,y; got '7'"]),
    (["START 15", "TURN -1,3"], ["OK", "ERROR TURN takes x,y; got '-1,3'"]),
    (["START 15", "TAKEBACK 3,3"], ["OK", "ERROR 3,3 is empty: nothing to take back"]),
    (["START 15", "INFO rule 4"], ["OK"]),  # INFO has no answer (test_info.py)
    (["START 15", "INFO timeout_turn soon"], ["OK"]),
    (["START 15", "INFO evaluate 7,7", "INFO folder /tmp", "RESTART"], ["OK", "OK"]),
    (["START 15", "SWAP2BOARD", "7,7", "7,7", "DONE"], ["OK", "ERROR 7,7 is already taken"]),
    (["", "   ", "ABOUT"], None),
]


@pytest.mark.parametrize(("lines", "expected"), LINES_AND_ANSWERS)
def test_each_line_gets_its_answer(lines: list[str], expected: list[str] | None) -> None:
    answers = run(*lines)
    if expected is None:
        assert len(answers) == 1
    else:
        assert answers == expected


def test_the_brain_plays_the_centre_and_answers_turns() -> None:
    answers = run("START 15", "INFO timeout_turn 200", "BEGIN", "TURN 0,0")
    assert answers[0] == "OK"
    assert answers[1] == "7,7"
    x, y = parse_move(answers[2])
    assert (x, y) not in {(7, 7), (0, 0)}


def test_a_board_is_set_and_the_win_taken() -> None:
    """BOARD: four of the brain's stones in a row (1) and three of the opponent's (2)."""
    lines = ["START 15", "INFO timeout_turn 200", "BOARD"]
    lines += [f"{x},7,1" for x in range(3, 7)] + ["3,9,2", "4,9,2", "5,9,2", "0,0,2", "DONE"]
    answers = run(*lines)
    assert answers[1] in ("2,7", "7,7")  # either end completes five


def test_a_four_is_blocked() -> None:
    lines = ["START 15", "INFO timeout_turn 200", "BOARD"]
    lines += [f"{x},7,2" for x in range(3, 7)] + ["2,7,1", "0,0,1", "14,14,1", "DONE"]
    assert run(*lines)[1] == "7,7"


def test_a_finished_game_is_an_error_and_not_a_crash() -> None:
    lines = ["START 15", "BOARD", *[f"{x},7,2" for x in range(5)], "0,0,1", "1,1,1", "2,2,1"]
    lines += ["3,3,1", "DONE", "ABOUT"]
    answers = run(*lines)
    assert answers[1].startswith("ERROR") and answers[2].startswith('name="')


def test_a_malformed_board_line_is_an_error() -> None:
    answers = run("START 15", "BOARD", "7,7", "DONE", "BOARD", "7,7,9", "DONE", "ABOUT")
    assert answers[1] == "ERROR a BOARD line is x,y,who; got '7,7'"
    assert answers[2] == "ERROR who is 1 (mine), 2 (the opponent's) or 3 (a dead stone); got 9"
    assert answers[3].startswith('name="')


def test_a_dead_five_of_a_continuous_game_is_no_win() -> None:
    """Field 3: the stones of a five already scored in a continuous game. They
    take their cells but make no row: the game goes on around them."""
    dead = [f"{x},7,3" for x in range(3, 8)]
    answers = run("START 15", "INFO rule 3", "INFO timeout_turn 200", "BOARD", *dead, "DONE")
    assert answers[0] == "OK" and answers[-1] != "" and not answers[-1].startswith("ERROR")
    assert parse_move(answers[-1]) not in {(x, 7) for x in range(3, 8)}


def test_the_brain_never_counts_on_a_dead_stone() -> None:
    """The brain's 4,5 5,5 6,5 would be a four with the dead stone at 3,5, and 7,5
    a five; it is not, so the opponent's four at 3,9 to 6,9 must be blocked."""
    stones = ["3,5,3", "4,5,1", "5,5,1", "6,5,1", "2,9,1"]
    stones += [f"{x},9,2" for x in range(3, 7)] + ["0,0,2"]
    answers = run("START 15", "INFO timeout_turn 200", "BOARD", *stones, "DONE")
    assert answers[-1] == "7,9"


def test_a_dead_stone_is_not_played_on() -> None:
    answers = run("START 15", "BOARD", "7,7,3", "DONE", "TURN 7,7")
    assert answers[-1] == "ERROR 7,7 is already taken"


def test_takeback_removes_a_stone() -> None:
    answers = run("START 15", "INFO timeout_turn 100", "BEGIN", "TAKEBACK 7,7", "BEGIN")
    assert answers == ["OK", "7,7", "OK", "7,7"]


def test_exactly_five_is_honoured() -> None:
    """Brain's stones: a row of 3,7 4,7 5,7 6,7 with 8,7 beyond a gap. Under freestyle
    7,7 wins (six in a row); under exactly five it does not, and 2,7 does."""
    stones = ["3,7,1", "4,7,1", "5,7,1", "6,7,1", "8,7,1", "0,0,2", "0,2,2", "0,4,2"]
    stones += ["0,6,2", "0,8,2", "2,14,2"]
    freestyle = run("START 15", "INFO timeout_turn 200", "BOARD", *stones, "DONE")
    exact = run("START 15", "INFO rule 1", "INFO timeout_turn 200", "BOARD", *stones, "DONE")
    assert freestyle[1] in ("7,7", "2,7")
    assert exact[1] == "2,7"


@pytest.mark.parametrize(
    ("clock", "stones", "seconds"),
    [
        (Clock(turn_ms=1_000), 0, 0.88),  # 90% of the turn, less the safety margin
        (Clock(turn_ms=1_000, lag_ms=50), 0, 0.83),  # and less the lag measured
        (Clock(turn_ms=0), 0, 0.02),  # as fast as it can: the floor
        (Clock(turn_ms=5_000, match_ms=60_000, left_ms=3_000), 0, 0.08),  # 3 s over 30 moves
        (Clock(turn_ms=5_000, match_ms=180_000, left_ms=90_000), 0, 2.98),
        (Clock(turn_ms=5_000, left_ms=9_000), 0, 0.28),  # time_left alone is honoured
        (Clock(turn_ms=5_000, left_ms=9_000), 40, 0.43),  # over 20 moves, 40 stones in
        (Clock(turn_ms=5_000, left_ms=9_000), 300, 0.88),  # never fewer than 10 moves
        (Clock(turn_ms=5_000, left_ms=1_000), 0, 0.02),  # the floor
        # Near the end of the match clock the floor is a 40th of what is left,
        (Clock(turn_ms=5_000, left_ms=300), 0, 0.0075),
        (Clock(turn_ms=5_000, left_ms=100), 300, 0.0025),
        # and with none left (the protocol allows less), a search of depth 1.
        (Clock(turn_ms=5_000, left_ms=0, match_ms=60_000), 0, 0.0),
        (Clock(turn_ms=5_000, left_ms=-300), 0, 0.0),
        (Clock(turn_ms=5_000, left_ms=0), 0, 4.48),  # 0 and no match: no match clock
        (Clock(turn_ms=5_000, left_ms=2_147_483_647), 0, 4.48),  # the protocol's unlimited
    ],
)
def test_the_clock_shares_out_the_time(clock: Clock, stones: int, seconds: float) -> None:
    assert clock.think_seconds(stones) == pytest.approx(seconds)


def test_the_clock_learns_its_lag_and_spends_the_match_clock() -> None:
    clock = Clock(turn_ms=1_000, left_ms=10_000)
    clock.measured(think_seconds=0.5, spent_seconds=0.56)  # 60 ms past its deadline
    assert clock.lag_ms == pytest.approx(60) and clock.left_ms == 9_440
    clock.measured(think_seconds=0.5, spent_seconds=0.4)  # early: the peak decays
    assert clock.lag_ms == pytest.approx(54) and clock.left_ms == 9_040
    clock.measured(think_seconds=0.5, spent_seconds=0.6)
    assert clock.lag_ms == pytest.approx(100)


def test_max_memory_is_taken_at_any_size() -> None:
    """A table of a quarter of max_memory, 1 MiB at the least and the default
    64 MiB at the most: each is a new table, and the game goes on."""
    lines = ["START 15", "INFO timeout_turn 100", "INFO max_memory 8388608", "BEGIN"]
    lines += ["INFO max_memory 1", "TURN 0,0", "INFO max_memory 99999999999", "TURN 0,1"]
    answers = run(*lines)
    assert answers[:2] == ["OK", "7,7"] and len(answers) == 4
    assert all(parse_move(answer) not in {(0, 0), (0, 1)} for answer in answers[2:])


def test_end_stops_a_brain_process_cleanly() -> None:
    with brain() as process:
        assert process.ask("ABOUT").startswith('name="')
        process.send("END")
        assert process.process.wait(timeout=30) == 0


@pytest.mark.slow
@pytest.mark.parametrize(
    ("size", "rule"), [(15, Rule.FREESTYLE), (20, Rule.EXACT), (15, Rule.RENJU)]
)
def test_two_brains_play_a_whole_game(size: int, rule: Rule) -> None:
    # How long the replies take is a benchmark's (bench/strength.py reports the
    # longest reply against the turn time; bench/first_move.py a new table's
    # first search under load): this shared machine's load is not the brain's.
    game = play(size, rule, turn_ms=400)
    assert game.forfeit is None
    assert game.winner is not None or game.board().is_full()


# A brain that answers every request for a move with h8 (7,7), and OK to START.
ALWAYS_H8 = (
    sys.executable,
    "-c",
    "import sys\n"
    "for line in sys.stdin:\n"
    "    word = line.split()[0] if line.split() else ''\n"
    "    if word == 'START': print('OK', flush=True)\n"
    "    elif word in ('BEGIN', 'TURN', 'DONE'): print('7,7', flush=True)\n"
    "    elif word == 'END': break\n",
)


def test_the_referee_forfeits_blacks_forbidden_move() -> None:
    """Under renju Black (X, to move after the opening) plays its double-three
    point h8: the game is lost for it; under freestyle the same move stands."""
    opening = [(6, 7), (0, 14), (8, 7), (0, 12), (7, 8), (0, 10), (7, 6), (0, 8)]
    entrants = (Entrant(ALWAYS_H8), Entrant(ALWAYS_H8))
    game = play(15, Rule.RENJU, turn_ms=100, entrants=entrants, opening=opening)
    assert game.winner == 1
    assert game.forfeit == "entrant 0 played '7,7', forbidden to Black: double-three"
    game = play(15, Rule.FREESTYLE, turn_ms=100, entrants=entrants, opening=opening)
    assert game.moves[len(opening)] == (7, 7)
    assert game.forfeit == "entrant 1 played '7,7'"  # the cell was taken


def stepping_brain(row: int, seconds: float, told: bool = False) -> tuple[str, ...]:
    """A brain that answers its n-th request for a move with (n, row) after
    ``seconds``; with ``told``, only when a time_left below the last one came
    since its last move (else it answers the illegal -1,-1)."""
    return (
        sys.executable,
        "-c",
        "import sys, time\n"
        "n, last, fresh = 0, 10**9, False\n"
        "for line in sys.stdin:\n"
        "    word = line.split()[0] if line.split() else ''\n"
        "    if word == 'START': print('OK', flush=True)\n"
        "    elif line.startswith('INFO time_left'):\n"
        "        left = int(line.split()[2])\n"
        "        fresh, last = left < last, left\n"
        "    elif word in ('BEGIN', 'TURN', 'DONE'):\n"
        f"        time.sleep({seconds})\n"
        f"        print(f'{{n}},{row}' if fresh or not {told} else '-1,-1', flush=True)\n"
        "        n, fresh = n + 1, False\n"
        "    elif word == 'END': break\n",
    )


def test_the_referee_keeps_each_sides_match_clock() -> None:
    """Each side is told its time left, less than before, before each move,
    and loses when its clock runs out: 250 ms a move from 650 ms runs out at
    the third (the first two may each take 75 ms more)."""
    entrants = (Entrant(stepping_brain(0, 0.25, told=True)), Entrant(stepping_brain(14, 0.01)))
    game = play(15, Rule.FREESTYLE, turn_ms=1_000, entrants=entrants, match_ms=650)
    assert game.winner == 1 and len(game.replies_ms[0]) == 3
    assert game.forfeit is not None
    assert game.forfeit.startswith("entrant 0 ran out of its match clock (-")
    # Without a match clock no time_left is sent: the first brain, told
    # nothing, answers -1,-1 and forfeits; one that does not wait to be told
    # plays on to its row.
    game = play(15, Rule.FREESTYLE, turn_ms=1_000, entrants=entrants)
    assert game.forfeit == "entrant 0 played '-1,-1'"
    entrants = (Entrant(stepping_brain(0, 0.01)), entrants[1])
    game = play(15, Rule.FREESTYLE, turn_ms=1_000, entrants=entrants)
    assert game.forfeit is None and game.winner == 0 and len(game.replies_ms[0]) == 5


def test_a_move_is_given_its_share_of_the_clock() -> None:
    """The clock as the manager sets it: a match clock of 3 s over 30 moves
    leaves a move 80 ms, where the turn alone would give it 4.48 s."""
    started = time.monotonic()
    lines = ["START 15", "INFO timeout_turn 5000", "INFO timeout_match 60000"]
    answers = run(*lines, "INFO time_left 3000", "BOARD", "7,7,2", "8,8,1", "6,8,2", "DONE")
    assert answers[0] == "OK" and parse_move(answers[1]) not in {(7, 7), (8, 8), (6, 8)}
    assert time.monotonic() - started < 2.0


def test_a_game_from_an_opening_sets_the_board_for_each_brain() -> None:
    """Three opening stones: the brain to move first gets them by BOARD, and so
    does the other at its first turn; the game goes on from there."""
    game = play(15, Rule.FREESTYLE, turn_ms=100, opening=[(7, 7), (8, 8), (6, 8)])
    assert game.forfeit is None and game.moves[:3] == [(7, 7), (8, 8), (6, 8)]
    assert len(game.moves) > 4


def test_the_documented_session_is_what_the_brain_answers() -> None:
    manual = (Path(__file__).resolve().parents[2] / "docs" / "brain.md").read_text()
    section = manual[manual.index("## A session") :]
    start = section.index("```text\n") + len("```text\n")
    session = section[start : section.index("\n```", start)]
    sent = [line[2:] for line in session.splitlines() if line.startswith("> ")]
    expected = [line[2:] for line in session.splitlines() if line.startswith("< ")]
    assert sent and expected
    assert run(*sent) == expected
