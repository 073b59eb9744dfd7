"""Thinking until told: Yixin-Board's unlimited time, and STOP, YXSTOP and END
read while the engine searches (``service/brain/native/input.c``)."""

from __future__ import annotations

import time

import pytest

from tests.brain.manager import brain, is_talk, parse_move, run
from tests.brain.tables import Clock

# Yixin-Board's "unlimited": what it sends, and what Rapfi reads as no limit.
UNLIMITED = [
    "INFO timeout_turn 2000000",
    "INFO timeout_match 100000000",
    "INFO time_left 100000000",
]
# A quiet middle game no search settles in seconds: it thinks until told.
POSITION = ["BOARD", "7,7,2", "8,8,1", "6,8,2", "8,6,1", "9,7,2", "6,6,1", "DONE"]
OCCUPIED = {(7, 7), (8, 8), (6, 8), (8, 6), (9, 7), (6, 6)}
# Not a benchmark's bound (bench/brain_stop.py measures that): an answer this
# late would mean the STOP was not read while the engine searched.
STOP_BOUND = 5.0


@pytest.mark.parametrize(
    "clock",
    [
        Clock(turn_ms=2_000_000),
        Clock(turn_ms=2_000_000, match_ms=100_000_000, left_ms=100_000_000),
        Clock(turn_ms=2_000_000, match_ms=100_000_000, left_ms=50_000),
        Clock(turn_ms=10**15, left_ms=2_147_483_647),  # the protocol's unlimited match
    ],
)
def test_unlimited_time_is_until_told(clock: Clock) -> None:
    assert clock.think_seconds(40) is None


@pytest.mark.parametrize(
    ("clock", "seconds"),
    [
        (Clock(turn_ms=1_999_999), 1_799.97891),  # a turn, however long
        (Clock(turn_ms=2_000_000, left_ms=60_000), 1.98),  # a match clock runs: it counts
        (Clock(turn_ms=2_000_000, match_ms=90_000_000, left_ms=90_000_000), 1_799.98),
    ],
)
def test_long_but_limited_time_is_a_deadline(clock: Clock, seconds: float) -> None:
    assert clock.think_seconds(0) == pytest.approx(seconds)


def test_a_stop_already_read_stops_the_search_it_follows() -> None:
    answers = run("START 15", *UNLIMITED, *POSITION, "STOP", "ABOUT")
    assert answers[0] == "OK" and answers[-1].startswith('name="')
    x, y = parse_move(answers[1])
    assert 0 <= x < 15 and 0 <= y < 15 and (x, y) not in OCCUPIED


def test_a_stop_with_no_search_is_not_answered() -> None:
    assert run("STOP", "YXSTOP", "START 15", "STOP", "ABOUT")[:1] == ["OK"]
    assert len(run("STOP", "YXSTOP", "START 15", "STOP", "ABOUT")) == 2


@pytest.mark.parametrize("stop", ["STOP", "YXSTOP"])
def test_stop_ends_an_unlimited_search_with_its_best_move(stop: str) -> None:
    with brain() as process:
        assert process.ask("START 15") == "OK"
        process.info(*UNLIMITED)
        process.send(*POSITION)
        with pytest.raises(TimeoutError):
            process.answer(timeout=0.5)  # still thinking, as told
        sent = time.monotonic()
        x, y = parse_move(process.ask(stop, timeout=STOP_BOUND))
        assert time.monotonic() - sent < STOP_BOUND
        assert 0 <= x < 15 and 0 <= y < 15 and (x, y) not in OCCUPIED
        process.info("INFO timeout_turn 100")  # the game goes on, on a clock again
        parse_move(process.ask("TURN 0,0"))


def test_end_ends_a_search_and_the_process_at_once() -> None:
    with brain() as process:
        assert process.ask("START 15") == "OK"
        process.info(*UNLIMITED)
        process.send(*POSITION)
        time.sleep(0.3)
        process.send("END")
        assert process.process.wait(timeout=STOP_BOUND) == 0
        process.reader.join(timeout=STOP_BOUND)
        spoken = [line for line in process.transcript if not is_talk(line)]
        assert spoken[0] == "OK" and spoken[1].startswith('name="') and len(spoken) == 2
