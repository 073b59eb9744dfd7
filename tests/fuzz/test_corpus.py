"""Every input the fuzzer ever kept (``tests/fuzz/corpus``) and every finding
it ever made (``tests/fuzz/crashes``) replays without a finding: each finding
is a regression test from then on. ``make sanitize`` replays them against the
sanitizer build of the core, where a finding in C aborts the run."""

from __future__ import annotations

from pathlib import Path

from tests.fuzz.targets import one_input

HERE = Path(__file__).parent
INPUTS = sorted((HERE / "corpus").iterdir()) + sorted((HERE / "crashes").iterdir())


def test_the_corpus_is_committed() -> None:
    assert len(list((HERE / "corpus").iterdir())) >= 100
    assert any((HERE / "crashes").iterdir())


def test_every_input_replays_without_a_finding() -> None:
    findings = []
    for path in INPUTS:
        try:
            one_input(path.read_bytes())
        except Exception as finding:  # each finding is reported with its input
            findings.append(f"{path.name}: {finding!r}")
    assert not findings, findings
