"""The documentation as a newcomer meets it: a front page read in five minutes,
links that lead somewhere, and no example that no test runs.

Every relative link and ``#anchor`` in README.md, CONTRIBUTING.md and docs/
must resolve: to a file or folder of the repository and, for an anchor, to a
heading of the Markdown file it names, slugged as GitHub slugs headings.

The examples are run where their subject is tested; this module checks only
that each example in the docs is of a kind one of them runs (EXAMPLE_RUNNERS).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parents[1]
FRONT_PAGE = ROOT / "README.md"
DOCUMENTS = (FRONT_PAGE, ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md")))
FRONT_PAGE_MAX_LINES = 200
FIRST_SCREEN_LINES = 15  # what a reader sees before scrolling

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})\s*(\S*)")
HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
HTML_ANCHOR = re.compile(r"<a\s+(?:name|id)=\"([^\"]+)\"")
CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.S)
INLINE_LINK = re.compile(
    r"!?\[((?:[^\[\]]|\[[^\]]*\])*)\]\(\s*(?:<([^>]*)>|([^)\s]+))(?:\s+\"[^\"]*\")?\s*\)"
)
REFERENCE_DEFINITION = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)", re.M)
SCHEME = re.compile(r"[a-z][a-z0-9+.-]*:", re.I)  # http:, https:, mailto:
LINE_ANCHOR = re.compile(r"L\d+(?:-L\d+)?")  # GitHub's anchors into a source file


@dataclass(frozen=True)
class Block:
    """A fenced code block: its info string's first word, its text, and the
    block just before it in the same document (an answer follows its request)."""

    language: str
    text: str
    previous: Block | None


def split_fences(markdown: str) -> tuple[str, list[Block]]:
    """The prose (code blocks blanked, so a ``#`` comment is no heading) and the blocks."""
    prose: list[str] = []
    blocks: list[Block] = []
    fence: str | None = None
    language, body = "", []
    for line in markdown.splitlines():
        opening = FENCE.match(line)
        if fence is None and opening:
            fence, language, body = opening.group(1), opening.group(2), []
            prose.append("")
        elif (
            fence is not None
            and line.strip().startswith(fence)
            and not line.strip(fence[0]).strip()
        ):
            blocks.append(Block(language, "\n".join(body), blocks[-1] if blocks else None))
            fence = None
            prose.append("")
        elif fence is not None:
            body.append(line)
            prose.append("")
        else:
            prose.append(line)
    return "\n".join(prose), blocks


def rendered(inline: str) -> str:
    """Inline Markdown as the reader sees it: code spans and links keep their text."""
    text = CODE_SPAN.sub(lambda match: match.group(2), inline)
    text = INLINE_LINK.sub(lambda match: match.group(1), text)
    return re.sub(r"<[^>]+>", "", text)


def github_slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped but
    ``-`` and ``_``, each space a ``-`` (github-slugger's rule; \\w is letters,
    digits and ``_`` in every script)."""
    return re.sub(r"[^\w\- ]", "", rendered(heading).strip().lower()).replace(" ", "-")


def anchors(markdown: str) -> set[str]:
    """Every anchor a Markdown file offers: a slug per heading, the second and
    later of the same slug numbered ``-1``, ``-2``, ...; and explicit ``<a id>``s."""
    prose, _ = split_fences(markdown)
    seen: Counter[str] = Counter()
    found = set(HTML_ANCHOR.findall(prose))
    for line in prose.splitlines():
        heading = HEADING.match(line)
        if heading:
            slug = github_slug(heading.group(1))
            found.add(slug if not seen[slug] else f"{slug}-{seen[slug]}")
            seen[slug] += 1
    return found


def link_targets(markdown: str) -> list[str]:
    """Where the document's links point, code (blocks and spans) left out."""
    prose, _ = split_fences(markdown)
    prose = CODE_SPAN.sub("", prose)
    inline = [match.group(2) or match.group(3) for match in INLINE_LINK.finditer(prose)]
    return inline + REFERENCE_DEFINITION.findall(prose)


def broken_links(document: Path, root: Path = ROOT) -> list[str]:
    """Each relative link of ``document`` that does not resolve, with why."""
    root = root.resolve()
    broken = []
    for target in link_targets(document.read_text()):
        if SCHEME.match(target):
            continue  # the web is not checked here: only what the repository holds
        path, _, anchor = unquote(target).partition("#")
        if not path:
            resolved = document
        elif path.startswith("/"):
            resolved = (root / path.lstrip("/")).resolve()
        else:
            resolved = (document.parent / path).resolve()
        if resolved != root and root not in resolved.parents:
            broken.append(f"{target}: outside the repository")
        elif not resolved.exists():
            broken.append(f"{target}: no such file or folder")
        elif anchor and resolved.suffix == ".md":
            if anchor not in anchors(resolved.read_text()):
                broken.append(f"{target}: no heading of {resolved.name} has that anchor")
        elif anchor and not LINE_ANCHOR.fullmatch(anchor):
            broken.append(f"{target}: only Markdown files have named anchors")
    return broken


# --- The rule, as a table ------------------------------------------------------


@pytest.mark.parametrize(
    ("heading", "slug"),
    [
        ("Big boards", "big-boards"),
        ("8x8 (issue 19)", "8x8-issue-19"),
        ("Suggest a move: `POST /v1/move`", "suggest-a-move-post-v1move"),
        (
            "The library's boundary (`tests/engine/test_core_boundary.py`, `tests/fuzz/`)",
            "the-librarys-boundary-testsenginetest_core_boundarypy-testsfuzz",
        ),
        ("Time per move, node rate, cores, memory", "time-per-move-node-rate-cores-memory"),
        # A symbol goes, as punctuation does: the multiplication sign of 3x3.
        ("Boards from 3\N{MULTIPLICATION SIGN}3", "boards-from-33"),
        ("See [the API](api.md) — twice", "see-the-api--twice"),
        ("Alerts and runbook", "alerts-and-runbook"),
    ],
)
def test_headings_get_githubs_slugs(heading: str, slug: str) -> None:
    assert github_slug(heading) == slug


def test_a_repeated_heading_is_numbered_and_code_is_no_heading() -> None:
    markdown = '# Usage\n## Usage\n```sh\n# Usage\n```\n### Usage\n<a id="custom"></a>\n'
    assert anchors(markdown) == {"usage", "usage-1", "usage-2", "custom"}


def test_the_checker_finds_every_kind_of_broken_link(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "other.md").write_text("# A heading\n")
    (tmp_path / "code.py").write_text("pass\n")
    document = tmp_path / "docs" / "page.md"
    document.write_text(
        "# Page\n"
        "[fine](other.md#a-heading), [fine](#page), [fine](../code.py#L1), [fine](/docs/),\n"
        "[fine](https://example.org/#anything), `[in code](nowhere.md)`,\n"
        "[gone](missing.md), [wrong anchor](other.md#b-heading), [here](#nowhere),\n"
        "[not markdown](../code.py#main), [escaped](../../etc/passwd)\n"
        "```sh\n[in a block](nowhere.md)\n```\n"
        "[defined]: <nothing.md>\n"
    )
    assert broken_links(document, root=tmp_path) == [
        "missing.md: no such file or folder",
        "other.md#b-heading: no heading of other.md has that anchor",
        "#nowhere: no heading of page.md has that anchor",
        "../code.py#main: only Markdown files have named anchors",
        "../../etc/passwd: outside the repository",
        "nothing.md: no such file or folder",
    ]


# --- The documents ---------------------------------------------------------------


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: str(path.relative_to(ROOT)))
def test_every_relative_link_and_anchor_resolves(document: Path) -> None:
    broken = broken_links(document)
    assert not broken, "broken links:\n" + "\n".join(broken)


def test_the_front_page_is_read_in_five_minutes() -> None:
    lines = FRONT_PAGE.read_text().splitlines()
    assert len(lines) <= FRONT_PAGE_MAX_LINES
    first_screen = "\n".join(lines[:FIRST_SCREEN_LINES])
    assert "make run" in first_screen and "make test" in first_screen


# Each kind of example the docs may show, and what runs it. Commands (``sh``
# blocks other than curl requests) and plain ``` blocks are not examples.
EXAMPLE_RUNNERS = {
    "a curl request with its answer": "tests/api/test_examples.py",
    "a Python session (>>>)": "pytest's doctest collection of the docs (pyproject.toml)",
    "the Python client's example": "tests/clients/test_python_install.py",
    "the TypeScript client's example": "tests/clients/test_typescript.py",
    "a session with the brain": "tests/brain/test_brain.py",
}


def example_kind(block: Block) -> str | None:
    """Which runner runs this block; None when it is an example none runs."""
    language, text = block.language, block.text
    if language in ("sh", "bash") and text.startswith("curl "):
        return "a curl request with its answer"
    if language == "json" and block.previous and block.previous.text.startswith("curl "):
        return "a curl request with its answer"
    if language == "python" and text.lstrip().startswith(">>>"):
        return "a Python session (>>>)"
    if language == "python" and text.startswith("from tictactoe_client import"):
        return "the Python client's example"
    if language in ("js", "ts") and text.startswith("import { createClient"):
        return "the TypeScript client's example"
    if language == "text" and text.startswith("> START"):
        return "a session with the brain"
    return None


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: str(path.relative_to(ROOT)))
def test_every_example_is_one_a_test_runs(document: Path) -> None:
    _, blocks = split_fences(document.read_text())
    commands = ("sh", "bash", "")
    unrun = [
        block.text.splitlines()[0] if block.text else block.language
        for block in blocks
        if example_kind(block) is None and block.language not in commands
    ]
    assert unrun == [], f"examples no test runs (runners: {EXAMPLE_RUNNERS})"
