"""INFO is never answered, whatever its key and value, and the rule values read
as Piskvork, Yixin-Board and Rapfi send them (``service/brain/native/rules.c``)."""

from __future__ import annotations

import pytest

from service.engine import Rule
from tests.brain.manager import BrainProcess, brain, is_talk, parse_move, play, run
from tests.brain.tables import read_rule

KEYS = [
    "timeout_turn",
    "timeout_match",
    "time_left",
    "max_memory",
    "rule",
    "max_depth",
    "max_node",
    "thread_num",
    "game_type",
    "evaluate",
    "folder",
]
# Good, zero, negative, the protocol's "unlimited", huge, not a number, empty, odd.
VALUES = [
    "1000",
    "0",
    "-1",
    "-2147483648",
    "2147483647",
    "99999999999999999999999999999999",
    "soon",
    "",
    "1.5",
    "7,7",
    "0x10",
    "  12  ",
    "1 2 3",
]
ODD_LINES = [
    "INFO",
    "INFO ",
    "info timeout_turn 300",
    "INFO RULE 1",
    "INFO \t rule\t4",
    "INFO thread_num 4",
    "INFO THREAD_NUM 2",  # Yixin-Board's own keys after it
    "INFO hash_size 1000",
    "INFO caution_factor 2",
    "INFO no_such_key 5",
    "INFO no_such_key",
    "INFO " + "9" * 5000,
]
# A clock the test can wait for, whatever the lines before it left.
CLOCK = ["INFO timeout_turn 100", "INFO timeout_match 0", "INFO time_left 2147483647"]


def assert_legal(answer: str, size: int = 15) -> tuple[int, int]:
    x, y = parse_move(answer)
    assert 0 <= x < size and 0 <= y < size
    return x, y


@pytest.mark.parametrize("key", KEYS)
def test_no_value_of_a_key_is_answered(key: str) -> None:
    answers = run("START 15", *(f"INFO {key} {value}" for value in VALUES), *CLOCK, "BEGIN")
    spoken = [line for line in answers if not is_talk(line)]
    assert len(spoken) == 2 and spoken[0] == "OK"
    assert_legal(spoken[1])


def test_unknown_keys_and_odd_lines_are_not_answered() -> None:
    answers = run("START 15", *ODD_LINES, *CLOCK, "BEGIN")
    spoken = [line for line in answers if not is_talk(line)]
    assert len(spoken) == 2 and spoken[0] == "OK"
    assert_legal(spoken[1])


def test_a_manager_reads_no_answer_to_any_info_line() -> None:
    """The same lines from a manager of our own over pipes: after INFO only
    talk may come before the next command's answer, and a move still follows."""
    every = [f"INFO {key} {value}" for key in KEYS for value in VALUES]
    with brain() as process:
        assert process.ask("START 15") == "OK"
        process.info(*every, *ODD_LINES, *CLOCK)
        assert_legal(process.ask("BEGIN"))
        process.info("INFO rule 4", "INFO time_left -300", *CLOCK)
        assert_legal(process.ask("TURN 0,0"))


# A quiet opening no search settles: without a node count each move would take
# its turn of ten minutes.
FIXED_NODES = ["INFO timeout_turn 600000", "INFO max_node 20000"]
MOVES = ["BEGIN", "TURN 8,8", "TURN 6,8", "TURN 9,6"]


def test_max_node_ends_each_search_at_its_count() -> None:
    with brain() as process:
        assert process.ask("START 15") == "OK"
        process.info(*FIXED_NODES)
        moves = [parse_move(process.ask(line, timeout=60)) for line in MOVES]
    assert len(set(moves)) == len(moves)


def test_a_node_count_answers_alike_on_any_number_of_threads() -> None:
    """A count of nodes, like a depth, is one answer for a position (the
    fixed-node matches of bench/match.py rely on it): one thread searches."""
    one = run("START 15", *FIXED_NODES, *MOVES)
    two = run("START 15", *FIXED_NODES, "INFO thread_num 2", *MOVES)
    assert one == two and len([line for line in one if not is_talk(line)]) == 5


def test_max_node_zero_is_no_count() -> None:
    """0 lifts the count again: the turn's clock ends the search."""
    answers = run("START 15", "INFO max_node 100", "INFO max_node 0", *CLOCK, "BEGIN")
    spoken = [line for line in answers if not is_talk(line)]
    assert spoken[0] == "OK" and not any(line.startswith("MESSAGE") for line in answers)
    assert_legal(spoken[1])


def test_a_notice_waits_for_the_next_command_and_is_talk() -> None:
    """The protocol: a brain holds what it has to say about an INFO until the
    next command that is not INFO; a MESSAGE line, which managers skip."""
    answers = run("START 15", "INFO rule 8", "INFO timeout_turn soon", "ABOUT")
    assert answers[0] == "OK" and answers[-1].startswith('name="')
    assert all(line.startswith("MESSAGE ") for line in answers[1:-1])
    assert any("caro" in line for line in answers[1:-1])
    assert any("timeout_turn" in line for line in answers[1:-1])


@pytest.mark.parametrize(
    ("value", "plays", "opening", "notice"),
    [
        (0, Rule.FREESTYLE, None, None),
        (1, Rule.EXACT, None, None),
        (2, Rule.RENJU, None, None),  # Yixin-Board's and Rapfi's renju
        (3, Rule.EXACT, None, "continuous"),  # Piskvork: exactly five, continuous game
        (4, Rule.RENJU, None, None),  # Piskvork's renju bit
        (5, Rule.FREESTYLE, "swap1", None),  # Rapfi: freestyle with swap1 (test_swap.py)
        (6, Rule.FREESTYLE, "swap2", None),  # Rapfi: freestyle with swap2
        (7, Rule.RENJU, None, "continuous"),  # Piskvork's bits from here: 1 + 2 + 4
        (8, Rule.FREESTYLE, None, "caro"),
        (9, Rule.FREESTYLE, None, "caro"),
        (12, Rule.RENJU, None, None),
        (16, Rule.FREESTYLE, None, "unknown"),
        (17, Rule.EXACT, None, "unknown"),
        (-1, Rule.FREESTYLE, None, "unknown"),
    ],
)
def test_each_rule_value_has_one_reading(
    value: int, plays: Rule, opening: str | None, notice: str | None
) -> None:
    reading = read_rule(value)
    assert reading.plays is plays and reading.opening == opening
    if notice is None:
        assert reading.notice is None
    else:
        assert reading.notice is not None and notice in reading.notice


def plays_renju(process: BrainProcess, value: int) -> None:
    """The brain is Black (X: the counts are equal) with a double-three point at
    h8 (7,7) and White's gapped column to stop: it stops it, and not from h8;
    with its move taken back, YXSHOWFORBID names h8 as Yixin-Board reads it."""
    mine = ["6,7,1", "8,7,1", "7,6,1", "7,8,1"]  # g8 i8 h9 h7
    theirs = ["0,0,2", "0,2,2", "0,4,2", "0,6,2"]  # a15 a13 a11 a9: a12 would be two fours
    assert process.ask("START 15") == "OK"
    process.info(f"INFO rule {value}", *CLOCK)
    move = process.ask("BOARD", *mine, *theirs, "DONE")
    assert move in {"0,1", "0,3", "0,5"}, move
    assert process.ask(f"TAKEBACK {move}") == "OK"
    assert process.ask("YXSHOWFORBID") == "FORBID 0707."
    process.info("INFO rule 0")  # freestyle: nothing is forbidden
    assert process.ask("YXSHOWFORBID") == "FORBID ."


@pytest.mark.parametrize("value", [2, 4])
def test_renju_is_played_as_renju(value: int) -> None:
    with brain() as process:
        plays_renju(process, value)


def test_thread_num_is_one_to_eight_and_a_notice_says_what_else_became() -> None:
    answers = run("START 15", "INFO thread_num 0", "INFO thread_num 99", *CLOCK, "BEGIN")
    talk = [line for line in answers if is_talk(line)]
    assert talk == [
        "MESSAGE thread_num is 1 to 8; got 0: ignored",
        "MESSAGE thread_num is 1 to 8; got 99: 8 used",
    ]
    spoken = [line for line in answers if not is_talk(line)]
    assert spoken[0] == "OK"
    assert_legal(spoken[1])


# X to move: its four on row 7 (3..6) completes at 2,7 or 7,7; O's open
# three on row 9 must wait. O to move after 2,7 by X elsewhere: its four blocked.
WIN_IN_ONE = ["BOARD", "3,7,1", "4,7,1", "5,7,1", "6,7,1", "3,9,2", "4,9,2", "5,9,2", "0,0,2"]
BLOCK = ["BOARD", "3,7,2", "4,7,2", "5,7,2", "6,7,2", "2,7,1", "9,9,1", "10,10,1", "12,3,1"]


@pytest.mark.parametrize("threads", [1, 2, 8])
def test_the_helper_threads_keep_every_forced_answer(threads: int) -> None:
    """Whatever the threads, a win in one is taken, a four blocked, and games
    go on: the helpers fill the table, the main search answers."""
    with brain() as process:
        assert process.ask("START 15") == "OK"
        process.info(f"INFO thread_num {threads}", "INFO timeout_turn 300", "INFO timeout_match 0")
        assert process.ask(*WIN_IN_ONE, "DONE") in {"2,7", "7,7"}
        assert process.ask("RESTART") == "OK"
        assert process.ask(*BLOCK, "DONE") == "7,7"
        taken = {(3, 7), (4, 7), (5, 7), (6, 7), (2, 7), (9, 9), (10, 10), (12, 3), (7, 7)}
        assert assert_legal(process.ask("TURN 0,0")) not in taken | {(0, 0)}
    # A whole game of searched moves, not forced ones, so that the helpers work.
    game = play(15, Rule.FREESTYLE, 200, infos=((f"INFO thread_num {threads}",),) * 2)
    assert game.forfeit is None
    assert game.winner is not None or game.board().is_full()
