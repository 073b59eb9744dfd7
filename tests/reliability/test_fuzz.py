"""Fuzzing whole HTTP bodies and query strings: never a 5xx, always the documented answer.

Hypothesis writes request bodies (arbitrary bytes, arbitrary JSON, and objects
close to the request schemas, batches included) and query strings (known
parameters with hostile values, and raw text), and sends them to the app in
process. Every response must be below 500, have a status the OpenAPI document
(``openapi/openapi.json``) lists for the operation, a media type it lists for
that status, and a body that validates against the listed schema (JSON Schema
2020-12, as OpenAPI 3.1 says). Paths outside the document must answer the
documented 404 problem, methods outside it the 405 problem.
"""

from __future__ import annotations

import json
import re
import urllib.parse
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import pytest
import referencing
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st

from service.app import create_app
from service.engine import Board
from service.settings import Settings
from tests.ops.waiting import ready
from tests.server import UNREACHED_LIMITS

DOCUMENT = Path(__file__).resolve().parents[2] / "openapi" / "openapi.json"
URI = "urn:tictactoe-openapi"
EXAMPLES = 600
SEEN: dict[str, Counter[int]] = {"bodies": Counter(), "query strings": Counter()}


class Contract:
    """The OpenAPI document as an oracle for responses."""

    def __init__(self, document: dict[str, Any]) -> None:
        self.document = document
        self.registry: referencing.Registry[Any] = referencing.Registry().with_resource(
            URI, referencing.jsonschema.DRAFT202012.create_resource(document)
        )
        self.templates = [
            (re.compile("^" + re.sub(r"\{[^/]+\}", "[^/]+", path) + "$"), path)
            for path in document["paths"]
        ]

    def validate(self, pointer: str, instance: Any) -> None:
        schema = {"$ref": f"{URI}#{pointer}"}
        jsonschema.Draft202012Validator(schema, registry=self.registry).validate(instance)

    def problems_in(self, method: str, path: str, response: httpx.Response) -> list[str]:
        """Every way ``response`` departs from the document (empty when it conforms)."""
        status = response.status_code
        if status >= 500:
            return [f"{status}: {response.text[:300]}"]
        template = next((t for pattern, t in self.templates if pattern.match(path)), None)
        operation = "get" if method == "HEAD" else method.lower()  # HEAD is GET without a body
        if template is None or operation not in self.document["paths"][template]:
            wanted = 404 if template is None else 405
            if status != wanted:
                return [f"{method} {path}: {status}, the document has no such operation"]
            if method == "HEAD":
                return []
            return self._body(response, "/components/schemas/ProblemDetail", "problem+json")
        answer = self.document["paths"][template][operation]["responses"].get(str(status))
        if answer is None:
            return [f"{method} {template}: status {status} is not documented"]
        content = answer.get("content")
        if not content or method == "HEAD":
            return [] if not response.content else [f"{status} has a body the document omits"]
        media = response.headers.get("content-type", "").split(";")[0].strip()
        if media not in content:
            return [f"{method} {template} {status}: media type {media!r} not in {list(content)}"]
        where = ["paths", _escape(template), operation, "responses", str(status), "content"]
        pointer = "/" + "/".join([*where, _escape(media), "schema"])
        return self._body(response, pointer, media)

    def _body(self, response: httpx.Response, pointer: str, media: str) -> list[str]:
        if not media.endswith("json"):
            return []
        try:
            self.validate(pointer, response.json())
        except (ValueError, jsonschema.ValidationError) as error:
            return [f"{response.status_code} body does not match {pointer}: {error}"[:600]]
        return []


def _escape(part: str) -> str:
    return part.replace("~", "~0").replace("/", "~1")


@pytest.fixture(scope="module")
def contract() -> Contract:
    return Contract(json.loads(DOCUMENT.read_text()))


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    app = create_app(
        Settings(node_budget=2_000, batch_limit=10, log_level="warning", **UNREACHED_LIMITS)
    )
    with TestClient(app, raise_server_exceptions=False) as test_client:
        ready(test_client)
        yield test_client


@pytest.fixture(scope="module", autouse=True)
def record(figures: dict[str, Any]) -> Iterator[None]:
    yield
    figures["fuzz"] = {
        name: {
            "requests": sum(statuses.values()),
            "statuses": {str(status): n for status, n in sorted(statuses.items())},
        }
        for name, statuses in SEEN.items()
    }


BOARD_TEXT = st.one_of(
    st.text(alphabet="XOxo.-_ /", max_size=60),
    st.text(max_size=30),
    st.sampled_from(["X.O.X....", "XXXOO....", "." * 16, "X" + "." * 47 + "O", "...../....."]),
)
SMALL_INT = st.one_of(st.integers(-3, 10), st.integers(), st.none())
ANY_SCALAR = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=20)
)
ANY_JSON = st.recursive(
    ANY_SCALAR,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)


@st.composite
def reachable_board(draw: st.DrawFn) -> dict[str, Any]:
    """The fields of a position some legal game reaches, finished or not."""
    rows, cols, k = draw(st.sampled_from([(3, 3, 3), (4, 4, 3), (4, 4, 4), (3, 5, 3), (5, 5, 4)]))
    board = Board.parse("." * rows * cols, rows=rows, cols=cols, k=k)
    rng = draw(st.randoms(use_true_random=False))
    for _ in range(draw(st.integers(0, rows * cols))):
        if board.is_game_over():
            break
        board = board.play(rng.choice(board.empty_cells()))
    return {"board": board.format(separators=True), "k": k}


@st.composite
def near_request(draw: st.DrawFn, move: bool = True) -> dict[str, Any]:
    """An object shaped like a move (or analysis) request; now and then a field is wrong."""
    # sampled_from rather than integers: hypothesis favours the bounds of ranges.
    wrong = st.sampled_from([False] * 7 + [True])
    if draw(st.sampled_from([True] * 3 + [False])):
        fields: dict[str, Any] = draw(reachable_board())
    else:
        fields = {"board": draw(BOARD_TEXT | ANY_SCALAR)}
    if move and draw(st.booleans()):
        fields["difficulty"] = draw(st.sampled_from(["perfect", "hard", "medium", "easy"]))
        fields["seed"] = draw(st.none() | st.integers(0, 2**53 - 1))
    for name, values in (
        ("difficulty", ANY_SCALAR),
        ("seed", st.one_of(st.integers(), st.text(max_size=5))),
        ("k", SMALL_INT | ANY_SCALAR),
        ("rows", SMALL_INT),
        ("player", st.sampled_from(["X", "O", "x", "Z", None, 1])),
        ("surprise", ANY_SCALAR),
        ("board", ANY_SCALAR),
    ):
        if draw(wrong):
            fields[name] = draw(values)
    if draw(wrong) and draw(wrong):
        del fields["board"]
    return fields


GARBAGE = st.one_of(st.binary(max_size=200), ANY_JSON.map(lambda v: json.dumps(v).encode()))
MOVE = near_request().map(lambda value: json.dumps(value).encode())
ANALYSIS = near_request(move=False).map(lambda value: json.dumps(value).encode())
BATCH = st.lists(near_request(), max_size=12).map(
    lambda items: json.dumps({"requests": items}).encode()
)
# (path, body): mostly the body the path takes, sometimes any other.
REQUEST = st.one_of(
    st.tuples(st.just("/v1/move"), MOVE),
    st.tuples(st.just("/v1/analysis"), ANALYSIS),
    st.tuples(st.just("/v1/batch"), BATCH),
    st.tuples(st.sampled_from(["/v1/move", "/v1/analysis", "/v1/batch", "/livez"]), GARBAGE),
)
CONTENT_TYPE = st.sampled_from(
    ["application/json"] * 10 + ["application/json; charset=utf-8", "text/plain", ""]
)


@settings(max_examples=EXAMPLES)
@given(request=REQUEST, content_type=CONTENT_TYPE)
def test_fuzzed_bodies_get_documented_answers(
    client: TestClient, contract: Contract, request: tuple[str, bytes], content_type: str
) -> None:
    path, body = request
    headers = {"content-type": content_type} if content_type else {}
    response = client.post(path, content=body, headers=headers)
    SEEN["bodies"][response.status_code] += 1
    assert contract.problems_in("POST", path, response) == []


QUERY_VALUE = st.one_of(
    st.text(max_size=30), BOARD_TEXT, st.integers().map(str), st.sampled_from(["", "null", "1e400"])
)
QUERY = st.one_of(
    reachable_board().map(urllib.parse.urlencode),
    st.dictionaries(
        st.sampled_from(["board", "k", "rows", "cols", "player", "difficulty", "seed", "x"]),
        QUERY_VALUE,
        max_size=6,
    ).map(urllib.parse.urlencode),
    st.text(max_size=80).map(lambda text: urllib.parse.quote(text, safe="=&")),
)
GET_PATH = st.one_of(
    st.sampled_from(["/v1/move", "/v1/move", "/v1/analysis", "/v1/analysis", "/readyz"]),
    # Undocumented routes (the playground at /, /docs, /static) are left out.
    st.sampled_from(["/problems/", "/v1/", "/nowhere/"]).flatmap(
        lambda prefix: st.text(alphabet="abcdefgxyz-._~", max_size=20).map(lambda t: prefix + t)
    ),
)


@settings(max_examples=EXAMPLES)
@given(path=GET_PATH, query=QUERY, method=st.sampled_from(["GET", "GET", "GET", "HEAD"]))
def test_fuzzed_query_strings_get_documented_answers(
    client: TestClient, contract: Contract, path: str, query: str, method: str
) -> None:
    response = client.request(method, f"{path}?{query}")
    SEEN["query strings"][response.status_code] += 1
    assert contract.problems_in(method, path, response) == []
