"""The coverage-guided fuzzer (atheris, libFuzzer's engine) over the library's
boundary: ``tests/fuzz/targets.py`` says what one input does.

    python -m tests.fuzz.run NEW_INPUTS_DIR [CORPUS_DIR ...] [libFuzzer flags]

``make fuzz`` runs it for ten minutes against the sanitizer build of the core,
adding what it finds to the committed corpus (``tests/fuzz/corpus``); ``make
test`` runs it for 30 seconds from that corpus, keeping nothing. Python's
coverage guides it (atheris instruments the service's modules as they are
imported); the compiled core, built by GCC, is checked by AddressSanitizer
and UndefinedBehaviorSanitizer, which abort on the first fault. With
``TTT_TEST_CORE`` set, that build is loaded in place of the installed core.
A finding is written as ``crash-*`` (see ``-artifact_prefix``); replay it with
``python -m tests.fuzz.run CRASH_FILE`` and add it to ``tests/fuzz/crashes``,
which ``tests/fuzz/test_corpus.py`` replays in every run of the suite.
"""

import sys

import atheris

import tests.core_under_test  # noqa: F401 - TTT_TEST_CORE's build, when set

with atheris.instrument_imports(include=["service", "tests.fuzz"]):
    from tests.fuzz.targets import one_input


def main() -> None:
    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
