"""The protocol's channel carries answers and talk only: stray prints,
warnings, bytes written to file descriptor 1 and failures in other threads of
the process never reach it as a line a manager would read
(``service/brain/__init__.py``; ``native/main.c`` for the executables)."""

from __future__ import annotations

import sys
import time

from tests.brain.manager import brain, is_talk, parse_move

# The brain, with a thread of a careless library beside it that talks and
# fails while the brain plays.
NOISY_BRAIN = """
import os, threading, time, warnings
def noise():
    time.sleep(0.3)
    print("stray print")
    print("stray", "partial", end="")
    warnings.warn("stray warning")
    os.write(1, b"stray bytes on descriptor 1\\n")
    raise RuntimeError("stray failure\\nwith a second line")
threading.Thread(target=noise, daemon=True).start()
from service.brain import main
main()
print("after the end")
"""


def test_stray_output_never_reaches_the_protocol_channel() -> None:
    with brain((sys.executable, "-c", NOISY_BRAIN), quiet=True) as process:
        assert process.ask("START 15") == "OK"
        process.info("INFO timeout_turn 100")
        deadline = time.monotonic() + 10
        while not any("stray failure" in line for line in process.transcript):
            assert time.monotonic() < deadline, process.transcript
            time.sleep(0.05)
        first = process.ask("BOARD", "7,7,2", "DONE")
        second = process.ask("TURN 0,0")
        process.send("END")
        process.process.wait(timeout=10)
        process.reader.join(timeout=10)
    parse_move(first)
    parse_move(second)
    spoken = [line for line in process.transcript if not is_talk(line)]
    assert spoken == ["OK", spoken[1], first, second]
    assert spoken[1].startswith('name="')
    talk = [line for line in process.transcript if is_talk(line)]
    assert any("stray print" in line for line in talk)
    assert any("stray warning" in line for line in talk)
    assert any("RuntimeError: stray failure with a second line" in line for line in talk)
    assert not any("after the end" in line for line in process.transcript)
