"""Swap openings: SWAP2BOARD at every stage, under swap2 (``INFO rule 6``) and
swap1 (``INFO rule 5``), answered legally and chosen for balance
(``service/brain/native/opening.c``)."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from tests.brain.manager import (
    IllegalAnswerError,
    brain,
    is_talk,
    parse_move,
    parse_swap_answer,
    play_swap2,
    run,
)
from tests.brain.tables import StageError, choose

# The candidate shapes of three stones (opening.c's OPENINGS), as offsets from
# the centre in play order: docs/brain.md says how they were picked.
OPENINGS = [
    ((0, 0), (2, 0), (1, 1)),
    ((0, 0), (1, 1), (-1, -1)),
    ((0, 0), (1, 0), (2, 1)),
    ((0, 0), (1, 1), (2, 2)),
    ((0, 0), (0, 2), (2, 0)),
    ((0, 0), (1, 1), (-2, 0)),
    ((0, 0), (1, 0), (0, 2)),
    ((0, 0), (0, 1), (2, 2)),
]
BALANCED = 0.1  # a score this near 0 puts two stones (opening.c)
OPENING_CUT = "the turn's deadline cut a search short: another machine may choose otherwise"

TURN = "INFO timeout_turn 300"
# Where answers are compared: a turn whose fixed costs (a table's first
# pages, a busy machine) leave the node budgets room before the deadline.
LONG_TURN = "INFO timeout_turn 1000"
cut: list[list[str]] = []  # sessions a deadline cut short (see ask)
STOP_BOUND = 5.0  # not a benchmark's bound: later would mean STOP was not read
TAKES_035 = "ERROR SWAP2BOARD under swap2 takes 0, 3 or 5 stones; got "
# One answer's form: SWAP, or one to three stones on one line.
FORM = re.compile(r"SWAP|\d+,\d+( \d+,\d+){0,2}")


def ask(
    size: int, rule: int, stones: list[tuple[int, int]], *more: str, turn: str = TURN
) -> list[str]:
    """The brain's answers after START: SWAP2BOARD's, then those to ``more``."""
    sent = [f"{x},{y}" for x, y in stones]
    answers = run(f"START {size}", f"INFO rule {rule}", turn, "SWAP2BOARD", *sent, "DONE", *more)
    assert answers[0] == "OK"
    if f"MESSAGE {OPENING_CUT}" in answers:
        # This machine is too busy to search the nodes before the deadline:
        # the choice is legal but another run may differ.
        cut.append(answers)
    return [line for line in answers[1:] if not is_talk(line)]


def stage(size: int, kind: str) -> list[tuple[int, int]]:
    """Stones in play order (Black first), around the centre of the board."""
    c, edge = size // 2, size - 1
    return {
        "empty": [],
        "one": [(c, c)],
        "three": [(c, c), (c + 1, c + 1), (c - 1, c + 1)],
        "three, Black ahead": [(c, c), (0, 0), (c + 1, c)],  # White's stone is lost in a corner
        "three, White ahead": [(0, 0), (c, c), (edge, edge)],  # and Black's
        "five": [(c, c), (c + 1, c), (c + 2, c + 2), (c - 1, c + 2), (c, c - 2)],
        "five, Black ahead": [(c, c), (0, 0), (c + 1, c), (edge, 0), (c + 1, c + 1)],
        "five, White ahead": [(0, 0), (c, c), (edge, edge), (c + 1, c), (0, edge)],
    }[kind]


SWAP2_STAGES = ["empty", "three", "three, Black ahead", "three, White ahead", "five"]
SWAP2_STAGES += ["five, Black ahead", "five, White ahead"]
SWAP1_STAGES = ["empty", "one", "three", "three, Black ahead", "three, White ahead"]


@pytest.mark.parametrize("size", [15, 20])
@pytest.mark.parametrize(
    ("rule", "kind"),
    [(6, kind) for kind in SWAP2_STAGES] + [(5, kind) for kind in SWAP1_STAGES],
)
def test_every_stage_is_answered_legally(size: int, rule: int, kind: str) -> None:
    """The referee (manager.py) takes the answer: its form, the number of
    stones the stage allows, on the board and on free cells."""
    stones = stage(size, kind)
    (answer,) = ask(size, rule, stones)
    assert FORM.fullmatch(answer), answer
    parse_swap_answer(answer, stones, size, swap2=rule == 6)


@pytest.mark.parametrize(("size", "rule"), [(15, 6), (20, 6), (15, 5), (20, 5)])
def test_the_opening_is_three_stones_of_the_candidates(size: int, rule: int) -> None:
    (answer,) = ask(size, rule, [])
    placed = parse_swap_answer(answer, [], size)
    c = size // 2
    assert placed is not None
    offsets = tuple((x - c, y - c) for x, y in placed)
    assert offsets in OPENINGS


@pytest.mark.parametrize("size", [15, 20])
@pytest.mark.parametrize("rule", [5, 6])
def test_a_lopsided_opening_takes_the_side_it_favours(size: int, rule: int) -> None:
    """Black's two stones together, White's in a corner: the brain swaps to
    Black. Black's in the corners and White's in the centre: it takes White
    and plays. (A long turn: under a loaded machine a 300 ms turn's deadline
    can cut the search at a depth too shallow to see it.)"""
    assert ask(size, rule, stage(size, "three, Black ahead"), turn=LONG_TURN) == ["SWAP"]
    (answer,) = ask(size, rule, stage(size, "three, White ahead"), turn=LONG_TURN)
    assert len(parse_swap_answer(answer, stage(size, "three, White ahead"), size) or ()) == 1


@pytest.mark.parametrize("size", [15, 20])
def test_after_five_stones_the_opener_takes_the_better_colour(size: int) -> None:
    assert ask(size, 6, stage(size, "five, Black ahead")) == ["SWAP"]
    (answer,) = ask(size, 6, stage(size, "five, White ahead"))
    assert len(parse_swap_answer(answer, stage(size, "five, White ahead"), size) or ()) == 1


@pytest.mark.parametrize("size", [15, 20])
@pytest.mark.parametrize(("rule", "kind"), [(6, "empty"), (6, "three"), (6, "five"), (5, "one")])
def test_the_choice_is_the_same_for_the_same_position_and_clock(
    size: int, rule: int, kind: str
) -> None:
    """Node budgets, not the time the machine takes, bound the searches: a
    fresh brain answers the same, in process or over pipes."""
    stones = stage(size, kind)
    cut.clear()
    first = ask(size, rule, stones, turn=LONG_TURN)
    second = ask(size, rule, stones, turn=LONG_TURN)
    with brain() as process:
        assert process.ask(f"START {size}") == "OK"
        process.info(f"INFO rule {rule}", LONG_TURN)
        third = process.swap2_board(stones)
        cut.extend([process.transcript] if f"MESSAGE {OPENING_CUT}" in process.transcript else [])
    if cut:
        pytest.skip(f"the deadline cut a search short on this busy machine: {cut}")
    assert second == first and third == first[0]


def test_the_choice_does_not_depend_on_the_searches_before_it() -> None:
    """A swap opening starts a game: what the brain searched before (another
    game, another opening) changes nothing."""
    stones = [f"{x},{y}" for x, y in stage(15, "three")]
    alone = ask(15, 6, stage(15, "three"))
    before = ["RESTART", "BEGIN", "TURN 0,0", "RESTART"]
    after = ask(15, 6, [], *before, "SWAP2BOARD", *stones, "DONE")
    assert after[-1] == alone[0]


@pytest.mark.parametrize(
    ("rule", "kind", "next_line", "mine"),
    [
        (6, "empty", "TURN 0,0", "Black"),  # the opponent took White and played
        (6, "three, Black ahead", "TURN 1,1", "Black"),  # the brain swapped
        (6, "three, White ahead", "TURN 1,1", "White"),  # the brain played White's move
        (6, "five, Black ahead", "TURN 1,1", "Black"),
        (5, "three, Black ahead", "TURN 1,1", "Black"),
    ],
)
def test_the_game_goes_on_after_the_choice(rule: int, kind: str, next_line: str, mine: str) -> None:
    """After its answer the brain holds the colour it chose: a TURN then is
    answered with a move on a free cell."""
    stones = stage(15, kind)
    answer, move = ask(15, rule, stones, next_line)
    placed = parse_swap_answer(answer, stones, 15, swap2=rule == 6) or ()
    taken = {*stones, *placed, parse_move(next_line.split()[1])}
    assert parse_move(move) not in taken
    assert (len(placed) == 1) == (mine == "White")


@pytest.mark.parametrize(
    ("rule", "lines", "error"),
    [
        (6, ["7,7"], TAKES_035 + "1"),
        (6, ["7,7", "8,8", "6,8", "9,9"], TAKES_035 + "4"),
        (5, ["7,7", "8,8"], "ERROR SWAP2BOARD under swap1 takes 0, 1 or 3 stones; got 2"),
        (6, ["7,7", "8,8", "7,7"], "ERROR 7,7 is already taken"),
        (6, ["7,7", "15,8", "6,8"], "ERROR 15,8 is off the 15x15 board"),
        (6, ["7,7", "8,8", "6,8,3"], "ERROR a SWAP2BOARD line is x,y or x,y,who; got '6,8,3'"),
        (6, ["7,7", "8"], "ERROR a SWAP2BOARD line is x,y or x,y,who; got '8'"),
        (6, ["3,3", "4,3", "3,4", "5,3", "3,5", "6,3", "3,6", "7,3", "3,7"], None),
    ],
)
def test_a_stage_that_cannot_be_answered_is_an_error(
    rule: int, lines: list[str], error: str | None
) -> None:
    answers = run("START 15", f"INFO rule {rule}", TURN, "SWAP2BOARD", *lines, "DONE", "ABOUT")
    assert answers[0] == "OK" and answers[-1].startswith('name="') and len(answers) == 3
    assert answers[1] == error if error else answers[1].startswith("ERROR")


def test_the_documented_session_is_what_the_brain_answers() -> None:
    manual = (Path(__file__).resolve().parents[2] / "docs" / "brain.md").read_text()
    section = manual[manual.index("### Swap openings") :]
    start = section.index("```text\n") + len("```text\n")
    session = section[start : section.index("\n```", start)]
    sent = [line[2:] for line in session.splitlines() if line.startswith("> ")]
    expected = [line[2:] for line in session.splitlines() if line.startswith("< ")]
    assert sent and expected
    assert [line for line in run(*sent) if not is_talk(line)] == expected


def test_who_fields_are_read_as_rapfi_sends_them() -> None:
    """Rapfi reads SWAP2BOARD lines as x,y,who; the order still says the colour."""
    stones = stage(15, "three, Black ahead")
    plain = ask(15, 6, stones)
    who = [f"{x},{y},{1 + index % 2}" for index, (x, y) in enumerate(stones)]
    answers = run("START 15", "INFO rule 6", TURN, "SWAP2BOARD", *who, "DONE")
    assert [line for line in answers[1:] if not is_talk(line)] == plain


def test_without_a_swap_rule_the_command_is_swap2() -> None:
    stones = stage(15, "five")
    (answer,) = run("START 15", TURN, "SWAP2BOARD", *(f"{x},{y}" for x, y in stones), "DONE")[1:]
    parse_swap_answer(answer, stones, 15)


def test_the_referee_refuses_what_the_protocol_does_not_allow() -> None:
    stones = [(7, 7), (8, 8), (6, 8)]
    for answer in ["7,7", "1,1 2,2 3,3", "15,1", "SWAP SWAP", "1,1,1"]:
        with pytest.raises(IllegalAnswerError):
            parse_swap_answer(answer, stones, 15)
    with pytest.raises(IllegalAnswerError):
        parse_swap_answer("1,1 2,2", stones, 15, swap2=False)
    with pytest.raises(IllegalAnswerError):
        parse_swap_answer("SWAP", [], 15)


# -- the method (opening.c), with an evaluation of the test's own ----------------


def test_the_opening_nearest_even_is_placed() -> None:
    """Each candidate is searched once, with an equal share of the turn; the
    score nearest 0 wins, the earlier candidate on a tie."""
    scores = [0.5, -0.3, 0.04, -0.04, 0.2, 0.6, -0.7, 0.04]
    shares: list[float] = []

    def evaluate(cells: dict[int, int], share: float) -> dict[int, float]:
        shares.append(share)
        return {0: scores[len(shares) - 1]}

    swap, stones = choose(15, [], "swap2", evaluate)
    c = 7
    assert not swap and stones == tuple((c + dy) * 15 + c + dx for dx, dy in OPENINGS[2])
    assert shares == pytest.approx([1 / len(OPENINGS)] * len(OPENINGS))


@pytest.mark.parametrize(
    ("score", "opening", "expected"),
    [
        (-0.5, "swap2", "swap"),  # Black is better: take it
        (0.5, "swap2", "move"),  # White is: play White's best move
        (BALANCED / 2, "swap2", "two"),  # even: put two, the opponent chooses
        (-BALANCED / 2, "swap2", "two"),
        (-BALANCED / 2, "swap1", "swap"),  # swap1 has no third choice
        (BALANCED / 2, "swap1", "move"),
    ],
)
def test_the_colour_is_chosen_by_the_score(score: float, opening: str, expected: str) -> None:
    stones = [7 * 15 + 7, 8 * 15 + 8, 8 * 15 + 6]
    white_moves = {100: score, 101: score - 0.2, 102: score - 0.3}

    def evaluate(cells: dict[int, int], share: float) -> dict[int, float]:
        if len(cells) == 3:
            return white_moves
        # Black's replies after White's stone: 50 + White's cell is the most even.
        white = next(cell for cell in white_moves if cells.get(cell) == 2)
        return {40: 0.6, 50 + white - 100: 0.05 * (white - 99), 60: -0.4}

    answer = choose(15, stones, opening, evaluate)
    if expected == "swap":
        assert answer == (True, ())
    elif expected == "move":
        assert answer == (False, (100,))
    else:
        assert answer == (False, (100, 50))  # White's best, Black's reply at 0.05


def test_a_stage_with_the_wrong_count_is_refused() -> None:
    with pytest.raises(StageError, match="takes 0, 3 or 5 stones; got 2"):
        choose(15, [112, 113], "swap2", lambda cells, share: {0: 0.0})


UNLIMITED = ["INFO timeout_turn 2000000", "INFO timeout_match 100000000"]


@pytest.mark.parametrize("kind", ["empty", "three", "five"])
def test_stop_answers_a_choice_until_told_at_once(kind: str) -> None:
    """Yixin-Board's unlimited time: the choice searches until told (the nodes
    of OPENING_UNTIL_TOLD_SECONDS at most); STOP answers it at once, legally."""
    stones = stage(15, kind)
    with brain() as process:
        assert process.ask("START 15") == "OK"
        process.info("INFO rule 6", *UNLIMITED)
        process.send("SWAP2BOARD", *(f"{x},{y}" for x, y in stones), "DONE")
        time.sleep(0.3)
        process.send("STOP")
        parse_swap_answer(process.answer(timeout=STOP_BOUND), stones, 15)


def test_a_choice_until_told_answers_when_the_input_ends() -> None:
    """No one is left to say stop: the searches stop at once, the answer stands."""
    stones = stage(15, "three")
    sent = [f"{x},{y}" for x, y in stones]
    answers = run("START 15", "INFO rule 6", *UNLIMITED, "SWAP2BOARD", *sent, "DONE")
    parse_swap_answer(answers[-1], stones, 15)


@pytest.mark.slow
@pytest.mark.parametrize("size", [15, 20])
def test_two_brains_play_a_swap2_game(size: int) -> None:
    """The whole of swap2 between two brains over the pipes, every answer
    refereed, and the game played to its end from the stones it left."""
    opening, game = play_swap2(size, turn_ms=100)
    assert len(opening.stones) in (3, 4, 5, 6)
    assert opening.answers[0].count(",") == 3
    assert game.forfeit is None and game.moves[: len(opening.stones)] == opening.stones
    assert game.winner is not None or game.board().is_full()
