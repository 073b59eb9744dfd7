"""The native brain's executables (``make brain``, ``make brain-windows``), built
when missing, and the command that runs each: the Linux one as it is, the
Windows one under Wine, with a prefix of its own in the temporary folder (nothing of
``$HOME`` is touched) and a wineserver started first and kept running, so
that no brain waits for one and none holds a pipe open after its brain exits.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LINUX_BRAIN = ROOT / "build" / "pbrain-tictactoe"
WINDOWS_BRAIN = ROOT / "build" / "pbrain-tictactoe.exe"
# Outside the repository: a prefix maps drive Z: to / (a symlink), and a tree
# walk from the repository (setuptools' package discovery at every install)
# would follow it round the whole file system.
WINE_PREFIX = Path(tempfile.gettempdir()) / f"tictactoe-wine-{os.getuid()}"
# Debian's wine64 puts its loader off PATH.
WINE_LOADERS = ("wine64", "wine", "/usr/lib/wine/wine64")
# The first start makes the prefix: seconds (no Mono, no Gecko: nothing here needs
# them; and no winemenubuilder, which would write menu entries under $HOME).
WINE_FIRST_START_TIMEOUT = 300.0


@dataclass(frozen=True)
class Executable:
    """How to run one brain: its command and environment."""

    name: str
    command: Sequence[str]
    env: Mapping[str, str] | None = None


def build(target: str, path: Path) -> Path:
    """``make target`` when ``path`` is missing (a stale one is make's to see)."""
    # Not the jobserver of a `make test` this runs under (its pipes are not
    # passed on): this make is a build of its own.
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    subprocess.run(["make", "-s", target], cwd=ROOT, env=env, check=True, timeout=600)
    assert path.is_file(), f"make {target} did not write {path}"
    return path


def linux_brain() -> Executable:
    return Executable("linux", (str(build("brain", LINUX_BRAIN)),))


SANITIZED_BRAIN = ROOT / "build" / "sanitized" / "pbrain-tictactoe"


def sanitized_brain() -> Executable:
    """The Linux brain built with AddressSanitizer and UndefinedBehaviorSanitizer."""
    target = str(SANITIZED_BRAIN.relative_to(ROOT))
    return Executable("sanitized", (str(build(target, SANITIZED_BRAIN)),))


THREAD_CHECKED_BRAIN = ROOT / "build" / "tsan" / "pbrain-tictactoe"


def thread_checked_brain() -> Executable:
    """The Linux brain built with ThreadSanitizer: a data race ends it with
    exit code 66 and the report on its standard error."""
    target = str(THREAD_CHECKED_BRAIN.relative_to(ROOT))
    env = {**os.environ, "TSAN_OPTIONS": "halt_on_error=1 exitcode=66"}
    return Executable("thread-checked", (str(build(target, THREAD_CHECKED_BRAIN)),), env)


def find_wine() -> str:
    for loader in WINE_LOADERS:
        found = shutil.which(loader)
        if found is not None:
            return found
    raise FileNotFoundError("no wine64 or wine: make tools installs Debian's wine64")


@contextmanager
def windows_brain() -> Iterator[Executable]:
    """The Windows brain under Wine, its wineserver running for as long as
    the context lasts."""
    exe = build("brain-windows", WINDOWS_BRAIN)
    wine = find_wine()
    server = shutil.which("wineserver") or str(Path(wine).with_name("wineserver"))
    WINE_PREFIX.mkdir(parents=True, exist_ok=True)
    env = {
        **os.environ,
        "WINEPREFIX": str(WINE_PREFIX),
        "WINEDEBUG": "-all",
        "WINEDLLOVERRIDES": "mscoree,mshtml,winemenubuilder.exe=",
    }
    # Fails when one already serves the prefix: that one serves.
    subprocess.run(
        [server, "-p"],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
    )
    try:
        # The first start makes the prefix and starts Wine's own services,
        # which live as long as the wineserver: not on any test's clock, and
        # on no pipe of ours, which they would hold open.
        subprocess.run(
            [wine, str(exe)],
            env=env,
            input=b"END\n",
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=True,
            timeout=WINE_FIRST_START_TIMEOUT,
        )
        yield Executable("windows", (wine, str(exe)), env)
    finally:
        subprocess.run([server, "-k"], env=env, capture_output=True, check=False)


def session(brain: Executable, lines: Sequence[str], timeout: float = 120.0) -> list[str]:
    """Every line the brain writes for ``lines``, its input then ended (as
    ``manager.run`` gives them to the brain in process)."""
    finished = subprocess.run(
        list(brain.command),
        input="".join(line + "\n" for line in lines),
        capture_output=True,
        text=True,
        env=None if brain.env is None else dict(brain.env),
        timeout=timeout,
        check=False,
    )
    assert finished.returncode == 0, finished.stderr
    return finished.stdout.splitlines()
