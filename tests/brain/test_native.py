"""The brain's executables (``make brain``, ``make brain-windows``): the one
implementation of the protocol (``service/brain/native/``) built without
Python answers as the extension's build of it does.

Every test here runs against the Linux executable and the Windows one under
Wine, except the whole games (the Linux one only: the Windows one runs the
same C, and a game under Wine costs a minute). Where the answers do not
depend on a search (errors, notices, forced moves) they are compared to the
letter with the brain run in process through the extension
(``manager.run``): the builds differ in their evaluation's source (the
header, the JSON), their channel's set-up and, on Windows, the C library.
"""

from __future__ import annotations

import re
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from service.engine import Rule
from service.engine.evaluation import CLASSES, EVALUATION_FILE, HEADER_FILE, header, load
from tests.brain import executables
from tests.brain.executables import Executable, session
from tests.brain.manager import Entrant, brain, is_talk, parse_move, parse_swap_answer, play
from tests.brain.manager import run as run_in_process
from tests.brain.test_brain import LINES_AND_ANSWERS
from tests.brain.test_info import KEYS, VALUES, plays_renju
from tests.brain.test_stop import OCCUPIED, POSITION, STOP_BOUND, UNLIMITED
from tests.brain.test_swap import FORM, stage

NATIVE = Path(__file__).resolve().parents[2] / "service" / "brain" / "native"


@pytest.fixture(scope="session")
def linux_brain() -> Executable:
    return executables.linux_brain()


@pytest.fixture(scope="session")
def windows_brain() -> Iterator[Executable]:
    with executables.windows_brain() as executable:
        yield executable


@pytest.fixture(params=["linux", "windows"])
def native(request: pytest.FixtureRequest) -> Executable:
    executable: Executable = request.getfixturevalue(f"{request.param}_brain")
    return executable


def spoken(lines: list[str]) -> list[str]:
    return [line for line in lines if not is_talk(line)]


@pytest.mark.parametrize(("lines", "expected"), LINES_AND_ANSWERS)
def test_each_line_gets_its_answer(
    native: Executable, lines: list[str], expected: list[str] | None
) -> None:
    answers = session(native, lines)
    if expected is None:
        assert len(answers) == 1
    else:
        assert answers == expected


# Sessions whose every line, talk included, is the in-process brain's: errors,
# notices, the documented session, moves no search can choose otherwise.
FOUR = [f"{x},7,2" for x in range(3, 7)] + ["2,7,1", "0,0,1", "14,14,1"]
OVERLINE = ["3,7,1", "4,7,1", "5,7,1", "6,7,1", "8,7,1", "0,0,2", "0,2,2", "0,4,2"]
OVERLINE += ["0,6,2", "0,8,2", "2,14,2"]
CLOCK = ["INFO timeout_turn 200", "INFO timeout_match 0"]
SAME_AS_PYTHON = {
    "documented": [
        *("START 15", "INFO timeout_turn 1000", "INFO rule 1", "BEGIN", "BOARD"),
        *("3,7,2", "4,7,2", "5,7,2", "6,7,2", "2,7,1", "0,0,1", "14,14,1", "DONE"),
        *("TAKEBACK 7,7", "ABOUT", "END"),
    ],
    "a four blocked": ["START 15", *CLOCK, "BOARD", *FOUR, "DONE"],
    "exactly five": ["START 15", "INFO rule 1", *CLOCK, "BOARD", *OVERLINE, "DONE"],
    "renju as exactly five": ["START 15", "INFO rule 4", *CLOCK, "BOARD", *OVERLINE, "DONE"],
    "rule notices": [f"INFO rule {value}" for value in (2, 3, 7, 8, 16, 17, -1)] + ["ABOUT"],
    "info notices": [
        *("START 15", "INFO timeout_turn soon", "INFO time_left", "INFO max_memory -5"),
        *("INFO max_depth 99", "INFO rule 1.5", "INFO timeout_match 0x10", "ABOUT"),
    ],
    "board errors": [
        *("START 15", "BOARD", "7,7", "DONE", "BOARD", "7,7,9", "DONE", "BOARD", "1,x,2"),
        *("DONE", "BOARD", "3,4,1", "3,4,2", "DONE", "ABOUT"),
    ],
    "a finished game": ["START 15", "BOARD", *[f"{x},7,2" for x in range(5)], "DONE"],
    "a dead stone's cell": ["START 15", *CLOCK, "BOARD", "7,7,3", "DONE", "TURN 7,7", "BEGIN"],
    "a dead stone that would make a row for either side": [
        *("START 15", "BOARD", *(f"{x},7,2" for x in range(4)), *(f"4,{y},1" for y in range(3, 7))),
        *("4,7,3", "DONE"),
    ],
    "a dead stone never counted on": [
        *("START 15", *CLOCK, "BOARD", "3,5,3", "4,5,1", "5,5,1", "6,5,1", "2,9,1"),
        *(f"{x},9,2" for x in range(3, 7)),
        *("0,0,2", "DONE"),
    ],
    "takeback": ["START 15", "INFO timeout_turn 100", "BEGIN", "TAKEBACK 7,7", "BEGIN"],
    "swap stages refused": [
        *("START 15", "INFO rule 6", "SWAP2BOARD", "7,7", "DONE", "INFO rule 5", "SWAP2BOARD"),
        *("1,1", "2,2", "3,3", "4,4", "5,5", "DONE", "SWAP2BOARD", "1,1,3", "DONE"),
        *("SWAP2BOARD", "99,1", "DONE", "SWAP2BOARD", "7,7,1,1", "DONE"),
    ],
    # A fixed depth's moves: the executables' evaluation.h is the weights the
    # extension was given at import (evaluation.json).
    "a fixed depth's moves": [
        *("START 15", "INFO max_depth 5", "INFO timeout_turn 5000", "BEGIN"),
        *("TURN 8,8", "TURN 6,8", "TURN 9,6", "TURN 5,9"),
    ],
    "a fixed node count's moves": [
        *("START 15", "INFO max_node 20000", "INFO timeout_turn 600000", "BEGIN"),
        *("TURN 8,8", "TURN 6,8", "TURN 9,6", "TURN 5,9"),
    ],
    "unknown commands": [
        "FOO bar",
        "start 15",
        "Swap",
        "info timeout_turn soon",
        "restart",
        "ABOUT",
    ],
}


@pytest.mark.parametrize("name", SAME_AS_PYTHON)
def test_the_answers_are_the_in_process_brains(native: Executable, name: str) -> None:
    lines = SAME_AS_PYTHON[name]
    answers = session(native, lines)
    expected = run_in_process(*lines)
    if name == "a dead stone's cell":  # BOARD's move is the search's: any but the dead cell
        assert parse_move(answers[1]) != (7, 7)
        answers[1] = expected[1]
    assert answers == expected


def test_a_move_is_legal_and_the_game_goes_on(native: Executable) -> None:
    answers = spoken(session(native, ["START 15", *CLOCK, "BEGIN", "TURN 0,0", "TURN 0,1"]))
    moves = [parse_move(answer) for answer in answers[1:]]
    assert answers[0] == "OK" and moves[0] == (7, 7) and len(set(moves)) == 3
    assert all(0 <= x < 15 and 0 <= y < 15 and (x, y) not in {(0, 0), (0, 1)} for x, y in moves)


@pytest.mark.parametrize("size", [3, 5, 8, 20])
def test_every_size_is_played(native: Executable, size: int) -> None:
    """The brain plays every board in the big-board search, 3x3 included."""
    answers = spoken(session(native, [f"START {size}", *CLOCK, "BEGIN", "TURN 0,0"]))
    assert answers[0] == "OK" and len(answers) == 3
    for x, y in map(parse_move, answers[1:]):
        assert 0 <= x < size and 0 <= y < size and (x, y) != (0, 0)


def test_a_turn_is_kept_to_its_clock(native: Executable) -> None:
    """A move on a quiet board answers within its turn: the clock is read."""
    started = time.monotonic()
    answers = spoken(session(native, ["START 15", "INFO timeout_turn 300", *POSITION]))
    assert answers[0] == "OK" and parse_move(answers[1]) not in OCCUPIED
    assert time.monotonic() - started < 5.0  # not the default turn of 5 s


def test_no_info_line_is_answered(native: Executable) -> None:
    # test_info.py's keys and values (the in-process brain's), and a longer number.
    every = [f"INFO {key} {value}" for key in KEYS for value in [*VALUES, "9" * 40]]
    lines = ["START 15", *every, "INFO", "INFO " + "9" * 5000, *CLOCK, "INFO time_left 2147483647"]
    answers = spoken(session(native, [*lines, "BEGIN"]))
    assert answers[0] == "OK" and len(answers) == 2
    parse_move(answers[1])


@pytest.mark.parametrize("stop", ["STOP", "YXSTOP"])
def test_stop_ends_an_unlimited_search_with_its_best_move(native: Executable, stop: str) -> None:
    with brain(native.command, native.env) as process:
        assert process.ask("START 15") == "OK"
        process.info(*UNLIMITED)
        process.send(*POSITION)
        with pytest.raises(TimeoutError):
            process.answer(timeout=0.5)  # still thinking, as told
        sent = time.monotonic()
        x, y = parse_move(process.ask(stop, timeout=STOP_BOUND))
        assert time.monotonic() - sent < STOP_BOUND
        assert 0 <= x < 15 and 0 <= y < 15 and (x, y) not in OCCUPIED
        process.info("INFO timeout_turn 100")
        parse_move(process.ask("TURN 0,0"))


def test_renju_is_played_and_its_forbidden_cells_shown(native: Executable) -> None:
    with brain(native.command, native.env) as process:
        plays_renju(process, 4)


def test_end_ends_a_search_and_the_process_at_once(native: Executable) -> None:
    with brain(native.command, native.env) as process:
        assert process.ask("START 15") == "OK"
        process.info(*UNLIMITED)
        process.send(*POSITION)
        time.sleep(0.3)
        process.send("END")
        assert process.process.wait(timeout=STOP_BOUND) == 0
        process.reader.join(timeout=STOP_BOUND)
        assert spoken(process.transcript) == ["OK", process.transcript[-1]]
        assert process.transcript[-1].startswith('name="')


def test_a_stop_already_read_stops_a_search_until_told(native: Executable) -> None:
    answers = spoken(session(native, ["START 15", *UNLIMITED, *POSITION, "STOP", "ABOUT"]))
    assert answers[0] == "OK" and answers[-1].startswith('name="')
    assert parse_move(answers[1]) not in OCCUPIED


@pytest.mark.parametrize(
    ("rule", "kind"),
    [(6, "empty"), (6, "three"), (6, "five"), (5, "one"), (5, "three, White ahead")],
)
def test_every_swap_stage_is_answered_legally(native: Executable, rule: int, kind: str) -> None:
    stones = stage(15, kind)
    lines = ["START 15", f"INFO rule {rule}", "INFO timeout_turn 300", "SWAP2BOARD"]
    lines += [f"{x},{y}" for x, y in stones] + ["DONE", "ABOUT"]
    answers = spoken(session(native, lines))
    assert answers[0] == "OK" and answers[2].startswith('name="')
    assert FORM.fullmatch(answers[1]), answers[1]
    parse_swap_answer(answers[1], stones, 15, swap2=rule == 6)


def test_a_lopsided_opening_takes_the_side_it_favours(native: Executable) -> None:
    """Black's two stones together, White's lost in a corner: SWAP (take Black)."""
    stones = stage(15, "three, Black ahead")
    lines = ["START 15", "INFO rule 6", "INFO timeout_turn 1000", "SWAP2BOARD"]
    answers = spoken(session(native, [*lines, *(f"{x},{y}" for x, y in stones), "DONE"]))
    assert answers[1] == "SWAP"


@pytest.mark.slow
@pytest.mark.parametrize(("size", "rule"), [(15, Rule.FREESTYLE), (20, Rule.EXACT)])
def test_a_whole_game_against_python_m_service_brain(
    linux_brain: Executable, size: int, rule: Rule
) -> None:
    native = Entrant(linux_brain.command)
    game = play(size, rule, turn_ms=150, entrants=(native, Entrant()))
    assert game.forfeit is None
    assert game.winner is not None or game.board().is_full()


@pytest.mark.slow
def test_a_whole_renju_game_between_the_windows_and_the_linux_brains(
    linux_brain: Executable, windows_brain: Executable
) -> None:
    """The Windows executable under Wine plays Black against the Linux one, to
    the end, with the referee forfeiting any forbidden or illegal move."""
    windows = Entrant(windows_brain.command, windows_brain.env)
    linux = Entrant(linux_brain.command, linux_brain.env)
    game = play(15, Rule.RENJU, turn_ms=150, entrants=(windows, linux))
    assert game.forfeit is None
    assert game.winner is not None or game.board().is_full()
    assert len(game.moves) >= 9  # a game, not a start


def test_the_executables_need_no_python(linux_brain: Executable, windows_brain: Executable) -> None:
    """Linux: static (no interpreter, no shared library). Windows: the system's
    DLLs only."""
    headers = subprocess.run(
        ["objdump", "-p", linux_brain.command[0]], capture_output=True, text=True, check=True
    ).stdout
    assert "NEEDED" not in headers and "INTERP" not in headers
    imports = subprocess.run(
        ["x86_64-w64-mingw32-objdump", "-p", windows_brain.command[-1]],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert set(re.findall(r"DLL Name: (\S+)", imports)) == {"KERNEL32.dll", "msvcrt.dll"}


def test_the_evaluation_weights_are_the_python_sides() -> None:
    """evaluation.h is service/engine/evaluation.json as C (the core has no
    JSON): what bench/tune.py writes with it, every value in its place."""
    weights = load(EVALUATION_FILE)
    text = HEADER_FILE.read_text()
    assert text == header(weights)
    numbers = [int(n) for n in re.findall(r"-?\d+", text[text.index("static const") :])]
    # The array sizes' names carry no digits; each array's values in order.
    assert numbers == [
        2, *weights.pattern_worth, *weights.pattern_worth_other,
        2, *weights.kind_bonus, *weights.kind_bonus_other,
        weights.tempo, *weights.threat_values,
        2, *weights.correction, *weights.correction_other,
        2, *weights.network.mover, *weights.network.other,
        *weights.network.mask, *weights.network.bias, *weights.network.out,
        weights.network.out_bias, *weights.network.linear,
    ]  # fmt: skip
    assert len(weights.correction) == len(CLASSES) == 715


def test_the_helper_threads_race_nowhere() -> None:
    """The brain built with ThreadSanitizer plays searched moves on two and on
    four threads, sharing one table, and stops a search with its helpers on
    STOP: any data race between them ends the process (exit code 66). (The
    other side plays the corners, each more than two cells from every stone
    before it: never a cell the brain may have taken.)"""
    checked = executables.thread_checked_brain()
    lines = ["START 15", *CLOCK, "INFO thread_num 2", "BEGIN", "TURN 0,0", "TURN 14,14"]
    lines += ["INFO thread_num 4", "TURN 0,14", "TURN 14,0", *UNLIMITED, *POSITION, "STOP"]
    answers = spoken(session(checked, lines, timeout=300))
    assert answers[0] == "OK" and len(answers) == 7
    game = {parse_move(answer) for answer in answers[1:6]}
    assert len(game | {(0, 0), (14, 14), (0, 14), (14, 0)}) == 9  # 5 and 4 stones apart
    assert parse_move(answers[6]) not in OCCUPIED


def test_a_sanitized_build_plays_a_session() -> None:
    """The brain's executable built with AddressSanitizer and UndefinedBehaviorSanitizer
    (built here by make when missing) plays moves, on one thread and on two (a
    helper searching beside it), a swap opening, a stop of a search with its
    helper, and renju's forbidden cells."""
    sanitized = executables.sanitized_brain()
    lines = ["START 15", *CLOCK, "BEGIN", "TURN 0,0", "INFO thread_num 2", "TURN 0,1"]
    lines += ["INFO rule 6", "SWAP2BOARD", "DONE", *UNLIMITED, *POSITION, "STOP", "ABOUT"]
    answers = spoken(session(sanitized, lines, timeout=300))
    assert answers[0] == "OK" and answers[-1].startswith('name="') and len(answers) == 7
    assert session(sanitized, SAME_AS_PYTHON["documented"]) == run_in_process(
        *SAME_AS_PYTHON["documented"]
    )
    with brain(sanitized.command, sanitized.env) as process:
        plays_renju(process, 4)
