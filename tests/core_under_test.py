"""A pytest plugin that tests another build of the compiled core in place of the
installed one: ``pytest -p tests.core_under_test`` with ``TTT_TEST_CORE`` naming
the shared library. ``make sanitize`` uses it for the build with
AddressSanitizer and UndefinedBehaviorSanitizer. Loaded with ``-p``, it runs
before any test module imports the engine.
"""

import importlib.util
import os
import sys

import pytest

PATH = os.environ.get("TTT_TEST_CORE", "")
if PATH:  # unset when pytest merely collects this file for doctests
    spec = importlib.util.spec_from_file_location("service.engine._core", PATH)
    assert spec is not None and spec.loader is not None, PATH
    core = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(core)
    sys.modules["service.engine._core"] = core


def pytest_configure(config: pytest.Config) -> None:
    if not PATH:
        raise pytest.UsageError("-p tests.core_under_test needs TTT_TEST_CORE")


def pytest_report_header() -> str:
    return f"compiled core under test: {PATH}"


@pytest.fixture(autouse=True)
def _core_is_the_one_under_test() -> None:
    from service.engine import search  # noqa: PLC0415 - after the swap above

    assert search._core is core
