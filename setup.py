"""Build the compiled search core; everything else about the package is in pyproject.toml.

Flags: -O3, and on x86-64 the POPCNT instruction (every x86-64 CPU since 2008
has it; without it each popcount is a library call and the search runs at a
third of the speed). TTT_CORE_CFLAGS adds flags, which the sanitizer build of
``make test`` uses.
"""

import os
import platform
from pathlib import Path

from setuptools import Extension, setup

flags = ["-O3", "-std=c11", "-Wall", "-Wextra", "-Werror", "-fno-strict-aliasing"]
if platform.machine().lower() in ("x86_64", "amd64"):
    flags.append("-mpopcnt")
flags += os.environ.get("TTT_CORE_CFLAGS", "").split()

# The core is a folder of files by concept (service/engine/core/common.h says
# which); every C file in it is part of the one extension module. So is the
# Gomocup brain (service/brain/native/, run by ``_core.run_brain``), but for
# main.c, which only its standalone executables have (`make brain`).
CORE = Path("service/engine/core")
BRAIN = Path("service/brain/native")
SOURCES = sorted(str(path) for path in CORE.rglob("*.c"))
SOURCES += sorted(str(path) for path in BRAIN.glob("*.c") if path.name != "main.c")
HEADERS = sorted(str(path) for path in [*CORE.rglob("*.h"), *BRAIN.glob("*.h")])

setup(
    ext_modules=[
        Extension(
            "service.engine._core",
            sources=SOURCES,
            depends=HEADERS,
            extra_compile_args=flags,
            extra_link_args=os.environ.get("TTT_CORE_LDFLAGS", "").split(),
        )
    ]
)
