"""The protocol's channel carries answers and talk only: stray prints,
warnings, bytes written to file descriptor 1 and exceptions inside the engine
never reach it as a line a manager would read (``service/brain/channel.py``)."""

from __future__ import annotations

import io
import sys

import pytest

from service.brain import Brain, main
from tests.brain.manager import brain, is_talk, parse_move

# The brain, with an engine that talks and fails as a careless library might.
NOISY_BRAIN = """
import os, sys, warnings
from service.engine import Engine
real = Engine.search
calls = []
def search(self, board, **kwargs):
    calls.append(board)
    print("stray print")
    print("stray", "partial", end="")
    warnings.warn("stray warning")
    os.write(1, b"stray bytes on descriptor 1\\n")
    if len(calls) == 3:  # START's warm-up, the first move, then this
        raise RuntimeError("stray failure\\nwith a second line")
    return real(self, board, **kwargs)
Engine.search = search
from service.brain import main
main()
"""


def test_stray_output_never_reaches_the_protocol_channel() -> None:
    with brain((sys.executable, "-c", NOISY_BRAIN), quiet=True) as process:
        assert process.ask("START 15") == "OK"
        process.info("INFO timeout_turn 100")
        first = process.ask("BOARD", "7,7,2", "DONE")
        failed = process.ask("TURN 0,0")
        third = process.ask("TURN 0,1")
        process.send("END")
        process.process.wait(timeout=10)
        process.reader.join(timeout=10)
    parse_move(first)
    parse_move(third)
    assert failed.startswith("ERROR internal error: RuntimeError: stray failure")
    spoken = [line for line in process.transcript if not is_talk(line)]
    assert spoken == ["OK", spoken[1], first, failed, third]
    assert spoken[1].startswith('name="')
    talk = [line for line in process.transcript if is_talk(line)]
    assert any("stray print" in line for line in talk)
    assert any("stray warning" in line for line in talk)


def test_a_failure_while_reading_info_is_talk(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(self: Brain, max_memory: int) -> None:
        raise RuntimeError("no memory today")

    monkeypatch.setattr(Brain, "limit_memory", fail)
    output = io.StringIO()
    main(io.StringIO("START 15\nINFO max_memory 100000000\nABOUT\n"), output)
    answers = output.getvalue().splitlines()
    assert answers[0] == "OK" and answers[-1].startswith('name="')
    (notice,) = answers[1:-1]
    assert notice.startswith("MESSAGE ") and "no memory today" in notice
