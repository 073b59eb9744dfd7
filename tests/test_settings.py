"""Settings read from the environment, and the CPU count read from cgroups."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from service.settings import Settings, available_cpus


def affinity() -> int:
    return len(os.sched_getaffinity(0))


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ({"cpu.max": "max 100000\n"}, None),  # no quota: the affinity mask decides
        ({"cpu.max": "100000 100000\n"}, 1),
        ({"cpu.max": "150000 100000\n"}, 2),  # 1.5 CPUs round up
        ({"cpu.max": "50000 100000\n"}, 1),  # never fewer than one
        ({"cpu/cpu.cfs_quota_us": "100000\n", "cpu/cpu.cfs_period_us": "100000\n"}, 1),
        ({"cpu/cpu.cfs_quota_us": "-1\n", "cpu/cpu.cfs_period_us": "100000\n"}, None),
        ({}, None),  # no cgroup files at all
    ],
)
def test_available_cpus_follow_the_cgroup_quota(
    tmp_path: Path, files: dict[str, str], expected: int | None
) -> None:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    assert available_cpus(tmp_path) == min(affinity(), expected or affinity())


def test_search_threads_default_to_the_available_cpus(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TTT_SEARCH_THREADS", raising=False)
    assert Settings().search_threads == available_cpus()
    monkeypatch.setenv("TTT_SEARCH_THREADS", "3")
    assert Settings().search_threads == 3


def test_the_table_size_is_set_in_mib(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TTT_TABLE_MB", "8")
    assert Settings().table_mb == 8
    monkeypatch.setenv("TTT_TABLE_MB", "0")
    with pytest.raises(ValueError, match="table_mb"):
        Settings()
