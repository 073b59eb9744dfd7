"""The curl examples of the docs (the front page's two requests and every one
of docs/api.md) and examples/bot.py, run against the app."""

from __future__ import annotations

import importlib.util
import json
import re
import shlex
import time
from pathlib import Path
from types import ModuleType

import pytest
from fastapi.testclient import TestClient

from service.api.problems import PROBLEM_TYPES
from service.engine import Board
from tictactoe_client import Client

ROOT = Path(__file__).resolve().parents[2]
# Where the examples live: every Markdown file of the docs, so that a request
# moved or added anywhere is still sent (docs/api.md holds the reference).
DOCUMENTS = (ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md")))
API_REFERENCE = ROOT / "docs" / "api.md"
CURL_BLOCK = re.compile(r"^```sh\ncurl ", re.M)
EXAMPLE = re.compile(r"```sh\n(curl [^`]+?)\n```\n+```json\n(.+?)\n```", re.DOTALL)


def _bot() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bot", ROOT / "examples" / "bot.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("rows", "k", "levels", "winners"),
    [
        (3, None, ("perfect", "perfect"), {None}),  # 3x3: a draw with perfect play
        (3, None, ("easy", "perfect"), {None, "O"}),  # perfect play never loses
        (4, 3, ("perfect", "hard"), {"X"}),  # 4x4, k=3: the first player wins
    ],
)
def test_bot_plays_a_whole_game(
    client: TestClient,
    rows: int,
    k: int | None,
    levels: tuple[str, str],
    winners: set[str | None],
) -> None:
    bot_client = Client("http://testserver", http_client=client)
    last = _bot().play_game(bot_client, rows, rows, k, levels, seed=1, show=False)
    # The game the bot played ends where the service says it does, as it should.
    final = Board.parse(last.board_after, k=k)
    assert final.is_game_over()
    winner = None if final.winner is None else final.winner.value
    assert last.winner_after == winner and winner in winners
    assert last.status_after == ("drawn" if winner is None else "won")


def _examples(document: Path) -> list[tuple[str, str]]:
    return EXAMPLE.findall(document.read_text())


def _every_example() -> list[pytest.param]:
    return [
        pytest.param(command, answer, id=f"{document.relative_to(ROOT)}-{number}")
        for document in DOCUMENTS
        for number, (command, answer) in enumerate(_examples(document), 1)
    ]


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: str(path.relative_to(ROOT)))
def test_every_curl_request_in_the_docs_shows_its_answer(document: Path) -> None:
    """A request without its answer right after it would be sent by no test."""
    text = document.read_text()
    assert len(CURL_BLOCK.findall(text)) == len(_examples(document))


def test_the_api_reference_shows_every_endpoint() -> None:
    commands = " ".join(command for command, _ in _examples(API_REFERENCE))
    for path in ("/v1/move", "/v1/analysis", "/v1/batch", "/livez", "/readyz"):
        assert path in commands, path
    assert "-X GET" in commands or "curl -s 'http" in commands
    assert "moves" in commands


def test_the_api_reference_lists_every_problem_type() -> None:
    reference = API_REFERENCE.read_text()
    listed = reference[reference.index("Problem types:") : reference.index("describes each.")]
    assert [slug for slug in PROBLEM_TYPES if f"`{slug}`" not in listed] == []


def test_the_front_page_shows_a_3x3_move_a_15x15_game_as_moves_and_renju() -> None:
    requests = [
        json.loads(command.split(" -d ", 1)[1].strip("'"))
        for command, _ in _examples(ROOT / "README.md")
    ]
    assert [("board" in body, "moves" in body) for body in requests] == [
        (True, False),
        (False, True),
        (False, True),
    ]
    assert len(requests[0]["board"]) == 9 and requests[1].get("rows", 15) == 15
    assert requests[2]["rule"] == "renju"


@pytest.mark.parametrize(("command", "answer"), _every_example())
def test_the_docs_examples_give_their_documented_answers(
    client: TestClient, command: str, answer: str
) -> None:
    assert replay(client, command) == json.loads(answer)


def replay(client: TestClient, command: str) -> object:
    """Send what a curl command of the docs sends; return the JSON answer."""
    words = shlex.split(command.replace("\\\n", " "))
    method, url, headers, data = "GET", "", {}, None
    words = words[1:]
    while words:
        word = words.pop(0)
        if word == "-X":
            method = words.pop(0)
        elif word == "-H":
            name, value = words.pop(0).split(":", 1)
            headers[name.strip()] = value.strip()
        elif word == "-d":
            data = words.pop(0)
            method = "POST" if method == "GET" else method
        elif word.startswith("http"):
            url = word
        elif word not in ("-s", "-i"):
            raise AssertionError(f"unexpected curl word {word!r}")
    path = url.split("8000", 1)[1]
    return client.request(method, path, headers=headers, content=data).json()


def _layout(value: object, indent: int = 0) -> str:
    """JSON as the docs show it: short values on one line, long ones broken."""
    pad = "  " * (indent + 1)
    if isinstance(value, dict) and len(json.dumps(value)) > 90:
        items = [f"{pad}{json.dumps(k)}: {_layout(v, indent + 1)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + "  " * indent + "}"
    if isinstance(value, list) and len(json.dumps(value)) > 80:
        items = [pad + _layout(v, indent + 1) for v in value]
        return "[\n" + ",\n".join(items) + "\n" + "  " * indent + "]"
    return json.dumps(value)


def rewrite_examples() -> None:
    """``make doc-examples``: replace every example's answer with what the app answers now."""
    from service.app import create_app  # noqa: PLC0415
    from service.settings import Settings  # noqa: PLC0415

    app = create_app(Settings())
    with TestClient(app) as client:
        deadline = time.monotonic() + 30
        while not app.state.ready:  # the examples show a ready server
            assert time.monotonic() < deadline, "the app never became ready"
            time.sleep(0.01)

        def fresh(match: re.Match[str]) -> str:
            answer = _layout(replay(client, match.group(1)))
            return f"```sh\n{match.group(1)}\n```\n\n```json\n{answer}\n```"

        for document in DOCUMENTS:
            document.write_text(EXAMPLE.sub(fresh, document.read_text()))


if __name__ == "__main__":
    rewrite_examples()
