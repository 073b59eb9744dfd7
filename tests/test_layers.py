"""The service's layers point down: each module imports only from its own layer or below.

From the bottom: ``service.engine`` (the library: no web framework, no metrics),
then ``service.api`` and ``service.settings``, then ``service.app`` (the
wiring), then ``service.__main__`` (the command). Every import counts, those
inside functions too: a circle closed at run time is still a circle.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SERVICE = ROOT / "service"
# Dotted prefix -> layer; a module is in the layer of its longest matching prefix.
LAYERS = {
    "service": 0,  # the package itself holds only __version__
    "service.engine": 0,
    "service.settings": 1,
    "service.api": 1,
    "service.brain": 1,  # the Gomocup protocol: an adapter over the engine, as the API is
    "service.app": 2,
    "service.__main__": 3,
}
# What the library must not import (docs/architecture.md).
FOREIGN_TO_ENGINE = ("fastapi", "starlette", "pydantic", "pydantic_settings", "prometheus_client")


def home(module: str) -> str:
    """The longest prefix of ``module`` in LAYERS."""
    matches = [prefix for prefix in LAYERS if module == prefix or module.startswith(prefix + ".")]
    return max(matches, key=len)


def layer(module: str) -> int:
    return LAYERS[home(module)]


def imports(source: str, package: str) -> list[tuple[int, str]]:
    """(line, module) for every import in ``source``, at any depth, relative ones resolved
    from ``package``; ``from a import b`` imports ``a`` and maybe the module ``a.b``.

    >>> imports("def f():\\n    from ..app import create_app\\n", "service.api")
    [(2, 'service.app'), (2, 'service.app.create_app')]
    """
    parts = package.split(".")
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = parts[: len(parts) - node.level + 1] if node.level else []
            target = ".".join([*base, node.module] if node.module else base)
            found.append((node.lineno, target))
            found += [(node.lineno, f"{target}.{alias.name}") for alias in node.names]
    return found


def upward_imports(source: str, module: str, package: str) -> list[str]:
    """The imports in ``source`` (the module ``module``) of service modules above its layer."""
    own = layer(module)
    targets = {
        (line, home(target))
        for line, target in imports(source, package)
        if target.split(".")[0] == "service" and layer(target) > own
    }
    return [f"line {line}: {target}" for line, target in sorted(targets)]


def module_of(path: Path) -> tuple[str, str]:
    """The module's dotted name, and the package its relative imports start from."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
        return ".".join(parts), ".".join(parts)
    return ".".join(parts), ".".join(parts[:-1])


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ("from service.engine import Board\n", []),
        ("from service.api.problems import problem_body\n", []),
        ("from service.api import routes\n", []),
        ("from service.app import create_app\n", ["line 1: service.app"]),
        # Inside a function, as the circle of issue 20 was.
        ("def main():\n    from service.app import create_app\n", ["line 2: service.app"]),
        ("from .. import app\n", ["line 1: service.app"]),
        ("import service.__main__\n", ["line 1: service.__main__"]),
    ],
)
def test_an_import_from_a_layer_above_is_found(source: str, found: list[str]) -> None:
    assert upward_imports(source, "service.api.example", "service.api") == found


@pytest.mark.parametrize(
    "path", sorted(SERVICE.rglob("*.py")), ids=lambda path: str(path.relative_to(ROOT))
)
def test_the_module_imports_nothing_from_a_layer_above_it(path: Path) -> None:
    module, package = module_of(path)
    upward = upward_imports(path.read_text(), module, package)
    assert not upward, f"{module} (layer {layer(module)}) imports from above: {upward}"


@pytest.mark.parametrize(
    "path", sorted((SERVICE / "engine").rglob("*.py")), ids=lambda path: str(path.relative_to(ROOT))
)
def test_the_engine_imports_no_web_or_metrics_library(path: Path) -> None:
    module, package = module_of(path)
    foreign = [
        f"line {line}: {target}"
        for line, target in imports(path.read_text(), package)
        if target.split(".")[0] in FOREIGN_TO_ENGINE
    ]
    assert not foreign, f"{module} imports {foreign}"
