"""Bad requests: each gets its RFC 9457 problem, never a 500."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastapi.testclient import TestClient

JSON = {"content-type": "application/json"}
GZIPPED_JSON = {**JSON, "content-encoding": "gzip"}
STATIC = "/static/playground/app.js"
Case = tuple[str, str, dict[str, str], Any, int, str]

BAD_REQUESTS: list[Case] = [
    # method, path, headers, body (dict: JSON; bytes: raw; str: query string), status, type
    ("POST", "/v1/move", JSON, {"board": "X.O"}, 422, "invalid-board"),
    ("POST", "/v1/move", JSON, {"board": "X.Z......"}, 422, "invalid-board"),
    ("POST", "/v1/move", JSON, {"board": "." * 10}, 422, "invalid-board"),
    ("POST", "/v1/move", JSON, {"board": "XO./..."}, 422, "invalid-board"),
    ("POST", "/v1/move", JSON, {"board": ".........", "k": 4}, 422, "invalid-board"),
    ("POST", "/v1/move", JSON, {"board": "." * 12, "rows": 5}, 422, "invalid-board"),
    ("POST", "/v1/move", JSON, {"board": "." * 450}, 422, "invalid-board"),
    # Boards up to 20x20, k up to the longer side: the problem names the limit.
    ("POST", "/v1/move", JSON, {"board": "." * 441, "rows": 21, "cols": 21}, 422, "validation"),
    ("POST", "/v1/move", JSON, {"moves": [], "k": 21}, 422, "validation"),
    ("POST", "/v1/move", JSON, {"moves": [], "rows": 9, "k": 10}, 422, "invalid-board"),
    # Move lists: each problem names the move at fault.
    ("POST", "/v1/move", JSON, {"moves": ["h8", "h8"]}, 422, "illegal-position"),
    ("POST", "/v1/move", JSON, {"moves": ["h8", "p1"]}, 422, "invalid-board"),
    ("POST", "/v1/move", JSON, {"moves": [0, 400]}, 422, "invalid-board"),
    ("POST", "/v1/move", JSON, {"moves": ["h8", 1.5]}, 422, "validation"),
    ("POST", "/v1/move", JSON, {"moves": ["h8", "x" * 40]}, 422, "validation"),
    ("POST", "/v1/move", JSON, {"moves": list(range(401))}, 422, "validation"),
    ("POST", "/v1/move", JSON, {"board": ".........", "moves": [0]}, 422, "validation"),
    ("POST", "/v1/move", JSON, {"moves": [0], "rule": "caro"}, 422, "validation"),
    ("GET", "/v1/move", {}, "moves=h8,h8", 422, "illegal-position"),
    ("GET", "/v1/move", {}, "moves=h8,,h9", 422, "invalid-board"),
    ("GET", "/v1/move", {}, "board=.........&moves=h8", 422, "validation"),
    ("POST", "/v1/move", JSON, {"board": "XX......."}, 422, "illegal-position"),
    ("POST", "/v1/move", JSON, {"board": "X........", "player": "X"}, 422, "illegal-position"),
    ("POST", "/v1/move", JSON, {"board": "XXXOOO..X"}, 422, "illegal-position"),
    ("POST", "/v1/move", JSON, {"board": "XXXXOOOO."}, 422, "illegal-position"),
    ("POST", "/v1/move", JSON, {"board": "XXXOO...."}, 422, "game-over"),
    ("POST", "/v1/move", JSON, {"board": "XXOOOXXOX"}, 422, "game-over"),
    ("POST", "/v1/move", JSON, {}, 422, "validation"),
    ("POST", "/v1/move", JSON, {"board": 7}, 422, "validation"),
    ("POST", "/v1/move", JSON, {"board": ""}, 422, "validation"),
    ("POST", "/v1/move", JSON, {"board": "." * 900}, 422, "validation"),
    ("POST", "/v1/move", JSON, {"board": ".........", "k": 2}, 422, "validation"),
    ("POST", "/v1/move", JSON, {"board": ".........", "k": 10**40}, 422, "validation"),
    ("POST", "/v1/move", JSON, {"board": ".........", "rows": "three"}, 422, "validation"),
    ("POST", "/v1/move", JSON, {"board": ".........", "player": "Z"}, 422, "validation"),
    ("POST", "/v1/move", JSON, {"board": ".........", "difficulty": "godlike"}, 422, "validation"),
    ("POST", "/v1/move", JSON, {"board": ".........", "seed": -1}, 422, "validation"),
    ("POST", "/v1/move", JSON, {"board": ".........", "seed": 2**64}, 422, "validation"),
    ("POST", "/v1/move", JSON, {"board": ".........", "dificulty": "easy"}, 422, "validation"),
    ("POST", "/v1/move", JSON, {"board": ".........", "time_limit_ms": 0}, 422, "validation"),
    ("POST", "/v1/move", JSON, {"board": ".........", "time_limit_ms": 10**6}, 422, "validation"),
    ("POST", "/v1/move", JSON, {"board": ".........", "time_limit_ms": 1.5}, 422, "validation"),
    ("POST", "/v1/move", JSON, [1, 2], 422, "validation"),
    ("POST", "/v1/move", JSON, b"{bad json", 400, "malformed-json"),
    ("POST", "/v1/move", JSON, b"\xff\xfe\x00", 400, "malformed-json"),
    ("POST", "/v1/move", JSON, b"[" * 5000, 400, "malformed-json"),
    (
        "POST",
        "/v1/move",
        {"content-type": "text/plain"},
        b'{"board": "........."}',
        415,
        "unsupported-media-type",
    ),
    ("POST", "/v1/move", {}, b'{"board": "........."}', 415, "unsupported-media-type"),
    (
        "POST",
        "/v1/move",
        GZIPPED_JSON,
        gzip.compress(b'{"board": "."}'),
        415,
        "unsupported-media-type",
    ),
    # Labelled gzip but sent plain: refused all the same, on the label.
    ("POST", "/v1/move", GZIPPED_JSON, {"board": "........."}, 415, "unsupported-media-type"),
    (
        "POST",
        "/v1/analysis",
        {**JSON, "content-encoding": "br"},
        {"board": "."},
        415,
        "unsupported-media-type",
    ),
    (
        "POST",
        "/v1/batch",
        {**JSON, "content-encoding": "deflate"},
        {},
        415,
        "unsupported-media-type",
    ),
    ("POST", "/v1/move", JSON, {"board": "." * 9, "pad": "x" * 20_000}, 413, "body-too-large"),
    ("POST", "/v1/analysis", JSON, {"board": "OOO......"}, 422, "illegal-position"),
    ("POST", "/v1/analysis", JSON, {"board": ".........", "seed": 1}, 422, "validation"),
    ("POST", "/v1/batch", JSON, {"requests": []}, 422, "validation"),
    ("POST", "/v1/batch", JSON, {"requests": [{"board": 1}]}, 422, "validation"),
    ("POST", "/v1/batch", JSON, {"requests": [{"board": "."}] * 6}, 422, "batch-too-large"),
    ("POST", "/v1/batch", JSON, {"board": "........."}, 422, "validation"),
    ("GET", "/v1/move", {}, "", 422, "validation"),
    ("GET", "/v1/move", {}, "board=XX.......", 422, "illegal-position"),
    ("GET", "/v1/move", {}, "board=.........&k=abc", 422, "validation"),
    ("GET", "/v1/move", {}, "board=.........&extra=1", 422, "validation"),
    ("GET", "/v1/analysis", {}, "board=" + "." * 5000, 422, "validation"),
    ("GET", "/v1/analysis", {}, "board=XXXOO....&board=.........", 422, "validation"),
    ("GET", "/v1/move", {}, "board=.........&k=3&k=3", 422, "validation"),
    ("HEAD", "/v1/move", {}, "board=X........&seed=1&seed=2", 422, "validation"),
    ("GET", "/v1/nothing", {}, "", 404, "not-found"),
    ("DELETE", "/v1/move", {}, "", 405, "method-not-allowed"),
    ("PUT", "/v1/analysis", JSON, {"board": "........."}, 405, "method-not-allowed"),
    ("PUT", "/v1/move", {}, b"", 405, "method-not-allowed"),
    ("POST", "/livez", JSON, {}, 405, "method-not-allowed"),
    ("GET", "/problems/nonsense", {}, "", 404, "not-found"),
    ("GET", "/static/nope.js", {}, "", 404, "not-found"),
    ("OPTIONS", STATIC, {}, "", 405, "method-not-allowed"),
    ("POST", STATIC, JSON, {}, 405, "method-not-allowed"),
    ("DELETE", STATIC, {}, "", 405, "method-not-allowed"),
    ("OPTIONS", "/v1/move", {}, "", 405, "method-not-allowed"),
    # A trailing slash is not the route: 404, never a redirect (see test_no_redirect_...).
    ("POST", "/v1/move/", JSON, {"board": "........."}, 404, "not-found"),
    ("GET", "/v1/analysis/", {}, "board=.........", 404, "not-found"),
    ("GET", "/livez/", {}, "", 404, "not-found"),
]


@pytest.mark.parametrize(
    ("method", "path", "headers", "body", "status", "kind"),
    BAD_REQUESTS,
    ids=[f"{m} {p} {s} {k} #{i}" for i, (m, p, _, _, s, k) in enumerate(BAD_REQUESTS)],
)
def test_bad_request_gets_its_problem(
    client: TestClient,
    method: str,
    path: str,
    headers: dict[str, str],
    body: Any,
    status: int,
    kind: str,
) -> None:
    if isinstance(body, str):
        response = client.request(method, f"{path}?{body}" if body else path, headers=headers)
    else:
        content = body if isinstance(body, bytes) else json.dumps(body).encode()
        response = client.request(method, path, content=content, headers=headers)
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/problem+json"
    if method == "HEAD":
        assert response.content == b""
        return
    problem = response.json()
    assert problem["type"] == f"/problems/{kind}"
    assert problem["status"] == status
    assert problem["title"] and len(problem["detail"]) > 10
    assert "Traceback" not in response.text and "service." not in problem["detail"]
    if kind == "validation" and method == "POST":
        assert problem["errors"] and all("pointer" in e for e in problem["errors"])
    if kind == "method-not-allowed":
        expected = {
            "/v1/move": "GET, HEAD, POST",
            "/v1/analysis": "GET, HEAD, POST",
            "/livez": "GET, HEAD",
            STATIC: "GET, HEAD",
        }[path]
        assert response.headers["allow"] == expected
        assert problem["detail"].endswith(f"use {expected}")


# Problem types the table above cannot send in process, and the file that
# sends each (not-acceptable is catalogued but never sent: see docs/api.md).
ELSEWHERE = {
    "body-timeout": "tests/reliability/test_hostile_clients.py",
    "headers-timeout": "tests/reliability/test_hostile_clients.py",
    "headers-too-large": "tests/reliability/test_hostile_clients.py",
    "service-unavailable": "tests/ops/test_load_shedding.py",
    "internal": "tests/api/test_problems.py",
    "not-acceptable": "docs/api.md",
    "rate-limited": "tests/api/test_limits.py",
    "invalid-api-key": "tests/api/test_limits.py",
    "api-key-required": "tests/api/test_limits.py",
}


def test_every_problem_type_is_sent_by_some_test() -> None:
    from service.api.problems import PROBLEM_TYPES  # noqa: PLC0415

    in_table = {kind for *_, kind in BAD_REQUESTS}
    assert in_table | set(ELSEWHERE) == set(PROBLEM_TYPES)
    root = Path(__file__).parents[2]
    for kind, where in ELSEWHERE.items():
        assert f"/problems/{kind}" in (root / where).read_text() or kind == "not-acceptable"
    assert "`not-acceptable` (406; catalogued" in (root / "docs" / "api.md").read_text()


def test_pointers_name_every_offending_field(client: TestClient) -> None:
    problem = client.post("/v1/move", json={"board": 3, "k": 99, "seed": -4}).json()
    assert {e["pointer"] for e in problem["errors"]} == {"/board", "/k", "/seed"}
    assert client.get("/v1/move?k=99").json()["errors"][0]["parameter"] in ("board", "k")


@pytest.mark.parametrize(
    ("query", "repeated"),
    [
        ("board=XXXOO....&board=.........", ["board"]),
        ("board=.........&k=3&k=4", ["k"]),
        ("board=.........&k=3&board=.........&k=3", ["board", "k"]),
    ],
)
def test_a_repeated_query_parameter_is_refused_by_name(
    client: TestClient, query: str, repeated: list[str]
) -> None:
    """The last value does not silently win: the repetition is an error, as unknown names are."""
    for path in ("/v1/analysis", "/v1/move"):
        problem = client.get(f"{path}?{query}").json()
        assert problem["type"] == "/problems/validation"
        assert [e["parameter"] for e in problem["errors"]] == repeated
        assert all("more than once" in e["detail"] for e in problem["errors"])
        assert all(f"{name}: " in problem["detail"] for name in repeated)


def test_a_compressed_body_is_refused_with_what_is_accepted(client: TestClient) -> None:
    response = client.post(
        "/v1/move", content=gzip.compress(b'{"board": "X...O...."}'), headers=GZIPPED_JSON
    )
    assert response.status_code == 415
    assert response.headers["accept-encoding"] == "identity"
    problem = response.json()
    assert "compressed" in problem["detail"] and "gzip" in problem["detail"]
    # identity is no encoding at all, and is accepted.
    plain = client.post(
        "/v1/move", json={"board": "X...O...."}, headers={"content-encoding": "identity"}
    )
    assert plain.status_code == 200


@pytest.mark.parametrize(
    ("body", "detail"),
    [
        (b"{bad json", "key must be a string at line 1 column 2"),
        (b"\xff\xfe\x00", "expected value at line 1 column 1"),
        (b'{"board": "X........",}', "trailing comma at line 1 column 23"),
    ],
)
def test_malformed_json_names_the_parsers_error_and_where(
    client: TestClient, body: bytes, detail: str
) -> None:
    response = client.post("/v1/move", content=body, headers=JSON)
    assert response.json()["detail"] == f"the body is not valid JSON: {detail}"


@pytest.mark.parametrize(
    ("body", "pointer", "detail"),
    [
        ({"board": "X........", "moves": ["a1"]}, "/moves", "give either board or moves, not both"),
        ({}, "", "give the position as board (its cells) or moves (the game so far)"),
    ],
)
def test_a_rule_across_fields_is_named_without_pydantics_prefix(
    client: TestClient, body: dict[str, Any], pointer: str, detail: str
) -> None:
    """The model's own checks raise ValueError; pydantic's "Value error, " is cut."""
    problem = client.post("/v1/move", json=body).json()
    assert problem["errors"] == [{"pointer": pointer, "detail": detail}]
    assert problem["detail"] == f"fix these fields and retry: {pointer or 'body'}: {detail}"


def test_an_app_built_in_the_test_answers_each_kind_of_problem_whole() -> None:
    """Built here rather than by a module's fixture, so that what is set up when
    the app is built (the problem handlers, the JSON body route) belongs to this
    test, for mutation testing too: each problem with its instance and its
    extensions."""
    from service.app import create_app  # noqa: PLC0415
    from service.settings import Settings  # noqa: PLC0415

    with TestClient(create_app(Settings(node_budget=2_000, batch_limit=2))) as fresh:
        empty = fresh.post("/v1/move", content=b"", headers=JSON).json()
        batch = fresh.post("/v1/batch", json={"requests": [{"board": "........."}] * 3}).json()
        board = fresh.post("/v1/move", json={"board": "XX"}).json()
        over = fresh.post("/v1/move", json={"board": "XOOXX.X.O", "player": "O"}).json()
        missing = fresh.get("/nope").json()
        method = fresh.delete("/v1/move").json()
    assert empty == {
        "type": "/problems/validation",
        "title": "The request does not match the schema",
        "status": 422,
        "detail": "fix these fields and retry: body: this field is required",
        "instance": "/v1/move",
        "errors": [{"pointer": "", "detail": "this field is required"}],
    }
    assert batch["type"] == "/problems/batch-too-large" and batch["instance"] == "/v1/batch"
    assert batch["errors"] == [{"pointer": "/requests", "detail": "at most 2 items"}]
    assert board["type"] == "/problems/invalid-board" and board["instance"] == "/v1/move"
    assert board["errors"] == [{"pointer": "/board", "detail": board["detail"]}]
    assert over["winner"] == "X" and over["winning_lines"] == [[0, 3, 6]]
    assert over["instance"] == "/v1/move"
    assert (missing["type"], missing["status"], missing["instance"]) == (
        "/problems/not-found",
        404,
        "/nope",
    )
    assert (method["type"], method["status"], method["instance"]) == (
        "/problems/method-not-allowed",
        405,
        "/v1/move",
    )


def test_the_frameworks_own_errors_become_problems_too() -> None:
    """What FastAPI and Starlette raise themselves, on routes the service does not
    have today: a body FastAPI's own handler could not read (not UTF-8) is
    malformed JSON, a 406 and a 503 keep their types, and any other status is a
    validation problem (4xx) or an internal one (5xx, 500 included), with the
    framework's detail."""
    from fastapi import FastAPI, HTTPException  # noqa: PLC0415

    from service.api.problems import install_problem_handlers  # noqa: PLC0415

    app = FastAPI()
    install_problem_handlers(app)

    @app.post("/parsed-by-fastapi")
    async def parsed(item: dict[str, int], tag: str = "") -> dict[str, int]:
        return item

    @app.get("/raises/{status}")
    async def raises(status: int) -> None:
        raise HTTPException(status, detail=f"raised {status}")

    with TestClient(app) as fresh:
        malformed = fresh.post("/parsed-by-fastapi", content=b'{"a": "\xc3("}', headers=JSON)
        statuses = (406, 409, 499, 500, 502, 503)
        raised = {status: fresh.get(f"/raises/{status}").json() for status in statuses}
    assert malformed.status_code == 400
    assert malformed.json()["type"] == "/problems/malformed-json"
    assert malformed.json()["detail"] == (
        "the body could not be read as UTF-8 JSON; check the encoding and the syntax"
    )
    assert {status: problem["type"] for status, problem in raised.items()} == {
        406: "/problems/not-acceptable",
        409: "/problems/validation",
        499: "/problems/validation",
        500: "/problems/internal",
        502: "/problems/internal",
        503: "/problems/service-unavailable",
    }
    assert [problem["detail"] for problem in raised.values()] == [f"raised {s}" for s in statuses]


def test_problems_are_compact_json(client: TestClient) -> None:
    """Like every answer: no spaces after the separators (and byte-for-byte replays)."""
    response = client.post("/v1/move", json={"board": "XX"})
    assert response.content == json.dumps(response.json(), separators=(",", ":")).encode()


def test_a_problem_error_reads_as_its_detail() -> None:
    """What a log line or a traceback shows of it."""
    from service.api.problems import ProblemError  # noqa: PLC0415

    assert str(ProblemError("validation", "the board must be a string")) == (
        "the board must be a string"
    )


@pytest.mark.parametrize(
    ("request_args", "entry"),
    [
        (
            {"method": "POST", "url": "/v1/move", "json": {"board": "X........", "colour": 1}},
            {
                "pointer": "/colour",
                "detail": "unknown field; check its spelling against the API documentation",
            },
        ),
        (
            {"method": "POST", "url": "/v1/batch", "json": {}},
            {"pointer": "/requests", "detail": "this field is required"},
        ),
    ],
)
def test_each_field_error_says_what_to_do(
    client: TestClient, request_args: dict[str, Any], entry: dict[str, str]
) -> None:
    problem = client.request(**request_args).json()
    assert entry in problem["errors"]


def test_more_than_five_field_errors_are_summed_up(client: TestClient) -> None:
    body = {"board": "X........", **{f"extra{i}": i for i in range(7)}}
    problem = client.post("/v1/move", json=body).json()
    assert len(problem["errors"]) == 7
    assert problem["detail"].endswith("(and 2 more)")
    assert problem["detail"].count("unknown field") == 5


def test_a_json_error_without_its_parsers_message_still_reads() -> None:
    """The parser's message is in the error's ctx; without one the detail still says what."""
    from service.api.problems import validation_errors  # noqa: PLC0415

    assert validation_errors([{"type": "json_invalid", "loc": ("body", 0)}]) == (
        "malformed-json",
        "the body is not valid JSON: parse error",
        [],
    )


def test_a_bad_character_names_its_cell(client: TestClient) -> None:
    problem = client.post("/v1/move", json={"board": "X...?...."}).json()
    assert problem["type"] == "/problems/invalid-board"
    assert problem["cell"] == 4


@pytest.mark.parametrize(
    ("path", "hint"),
    [
        ("/livez/", " (without the trailing slash: /livez)"),
        ("/nothing/", ""),  # no route without the slash either
        ("/nothing", ""),
        ("/livezX/", ""),  # only the slash is taken off: /livezX is not /livez
    ],
)
def test_a_404_names_the_route_a_trailing_slash_missed(
    client: TestClient, path: str, hint: str
) -> None:
    problem = client.get(path).json()
    assert problem["detail"] == f"there is no resource at {path}; see /docs for the API{hint}"


@pytest.mark.parametrize("method", ["GET", "POST"])
def test_no_redirect_is_built_from_the_host_header(client: TestClient, method: str) -> None:
    """A trailing slash gets the 404 problem, naming the path without it; no Location at all."""
    response = client.request(
        method,
        "/v1/move/?board=X........",
        json={"board": "X........"} if method == "POST" else None,
        headers={"host": "evil.example"},
        follow_redirects=False,
    )
    assert response.status_code == 404
    assert "location" not in response.headers
    problem = response.json()
    assert problem["type"] == "/problems/not-found"
    assert "evil" not in response.text
    assert problem["detail"].endswith("(without the trailing slash: /v1/move)")


def test_game_over_problem_carries_winner_and_lines(client: TestClient) -> None:
    problem = client.post("/v1/move", json={"board": "XOOXX.X.O", "player": "O"}).json()
    assert problem["type"] == "/problems/game-over"
    assert problem["winner"] == "X" and problem["winning_lines"] == [[0, 3, 6]]


def test_body_limit_answers_before_reading_a_streamed_body(client: TestClient) -> None:
    def chunks() -> Any:
        yield b'{"board": "'
        for _ in range(100):
            yield b"." * 1024
        yield b'"}'

    response = client.post("/v1/move", content=chunks(), headers=JSON)
    assert response.status_code == 413
    problem = response.json()
    assert problem["type"] == "/problems/body-too-large"
    assert problem["detail"].startswith("the body must be at most 16384 bytes")
    assert response.headers["connection"] == "close"  # the rest of the body is not read


def test_batch_has_a_larger_body_limit(client: TestClient) -> None:
    body = {"requests": [{"board": "........."}] * 5, "pad": "x" * 20_000}
    response = client.post("/v1/batch", content=json.dumps(body).encode(), headers=JSON)
    assert response.json()["type"] == "/problems/validation"  # read, then refused on content
    big = json.dumps({"requests": [{"board": "." * 9}], "pad": "x" * 1_100_000}).encode()
    assert client.post("/v1/batch", content=big, headers=JSON).status_code == 413


def test_internal_errors_are_generic_problems(client: TestClient) -> None:
    solver = client.app.state.solver  # type: ignore[attr-defined]
    original = solver.suggest

    async def broken(question: Any) -> Any:
        raise RuntimeError("secret internal detail")

    solver.suggest = broken
    try:
        response = client.post(
            "/v1/move", json={"board": "........."}, headers={"x-request-id": "trace-me"}
        )
    finally:
        solver.suggest = original
    assert response.status_code == 500
    problem = response.json()
    assert problem["type"] == "/problems/internal" and problem["request_id"] == "trace-me"
    assert "quote request id trace-me" in problem["detail"]
    assert problem["instance"] == "/v1/move"
    assert "secret" not in response.text and "RuntimeError" not in response.text


@pytest.mark.parametrize(
    ("body", "pointer", "quoted"),
    [
        ({"moves": ["h8", "i9", "h8"]}, "/moves/2", "move 3 ('h8') takes h8"),
        ({"moves": ["h8", "p1"]}, "/moves/1", "'p1' is off the 15x15 board"),
        ({"moves": [0, 225]}, "/moves/1", "cell 225 is off the 15x15 board"),
        (
            {"moves": ["a1", "a3", "b1", "b3", "c1", "c3", "d1", "d3", "e1", "j9"]},
            "/moves/9",
            "after the game ended: X won with move 9",
        ),
        ({"board": ".........", "moves": [0]}, "/moves", "either board or moves, not both"),
        ({"board": "." * 441, "rows": 21, "cols": 20}, "/rows", "less than or equal to 20"),
        ({"moves": [], "k": 21}, "/k", "less than or equal to 20"),
        ({"moves": [], "rows": 9, "k": 10}, "/k", "between 3 and 9"),
        ({"board": "." * 441}, "/board", "the largest board (20x20"),
    ],
)
def test_problems_name_the_move_or_the_limit(
    client: TestClient, body: dict[str, Any], pointer: str, quoted: str
) -> None:
    problem = client.post("/v1/move", json=body).json()
    assert problem["status"] == 422
    assert quoted in problem["detail"]
    assert [e["pointer"] for e in problem["errors"]] == [pointer]


def test_a_batch_item_names_its_own_move(client: TestClient) -> None:
    body = {"requests": [{"moves": ["h8"]}, {"moves": ["h8", "h8"]}]}
    first, second = client.post("/v1/batch", json=body).json()["results"]
    assert first["player"] == "O" and first["rows"] == 15
    assert second["type"] == "/problems/illegal-position"
    assert second["errors"][0]["pointer"] == "/requests/1/moves/1"


def _guarded_post(reader: str, receive: Any, headers: list[tuple[bytes, bytes]]) -> list[Any]:
    """POST /v1/move at the ASGI level through the guard (a 1 KiB body limit, a
    0.05 s body timeout) in front of an app with the service's problem handlers:
    the guard reads the body itself (a replayable route, with the answer cache
    on) or the app does. Returns what was sent."""
    from fastapi import FastAPI  # noqa: PLC0415

    from service.api.guards import RequestGuard  # noqa: PLC0415
    from service.api.problems import install_problem_handlers  # noqa: PLC0415
    from service.api.replay import AnswerCache  # noqa: PLC0415

    app = FastAPI()
    install_problem_handlers(app)

    async def move(request: Any) -> None:
        await request.body()
        raise AssertionError("the app must not answer a body the guard refuses")

    app.add_route("/v1/move", move, methods=["POST"])
    guard = RequestGuard(
        app,
        body_limit=1024,
        batch_body_limit=1024,
        batch_path="/v1/batch",
        answers=AnswerCache(16 if reader == "guard" else 0),
        replayable_paths=frozenset({"/v1/move"}),
        on_replay=lambda stored: None,
        body_timeout=0.05,
    )
    sent: list[Any] = []

    async def send(message: Any) -> None:
        sent.append(message)

    scope = {"type": "http", "method": "POST", "path": "/v1/move", "headers": headers}
    anyio.run(guard, {**scope, "query_string": b""}, receive, send)
    assert [m["type"] for m in sent] == ["http.response.start", "http.response.body"]
    return sent


def _closing_problem(sent: list[Any], status: int, kind: str) -> dict[str, Any]:
    assert sent[0]["status"] == status
    assert (b"connection", b"close") in sent[0]["headers"]
    problem: dict[str, Any] = json.loads(sent[1]["body"])
    assert problem["type"] == f"/problems/{kind}" and problem["status"] == status
    return problem


@pytest.mark.parametrize("reader", ["guard", "app"])
def test_a_body_that_does_not_arrive_in_time_gets_the_408_problem(reader: str) -> None:
    """The whole body has ``body_timeout`` seconds, whoever reads it; past it the
    answer is the body-timeout problem and the connection closes (the real
    server's case is in tests/reliability/test_hostile_clients.py)."""
    import asyncio  # noqa: PLC0415

    async def receive() -> Any:
        await asyncio.Event().wait()  # the body never comes

    headers = [(b"content-type", b"application/json"), (b"content-length", b"10")]
    problem = _closing_problem(_guarded_post(reader, receive, headers), 408, "body-timeout")
    assert problem["detail"] == "the body did not arrive within 0.05 s; send it whole"


@pytest.mark.parametrize("reader", ["guard", "app"])
def test_a_body_that_grows_past_the_limit_gets_the_413_problem(reader: str) -> None:
    """A body with no Content-Length (chunked) is counted as it arrives: once it
    passes the limit the answer is body-too-large and the connection closes."""

    async def receive() -> Any:
        return {"type": "http.request", "body": b"[" * 600, "more_body": True}

    headers = [(b"content-type", b"application/json"), (b"transfer-encoding", b"chunked")]
    problem = _closing_problem(_guarded_post(reader, receive, headers), 413, "body-too-large")
    assert problem["detail"].startswith("the body must be at most 1024 bytes")


def test_head_sends_the_get_answers_headers_and_an_empty_body() -> None:
    """At the ASGI level (the test client drops a HEAD body itself): the app
    below answers GET with a body; HEAD gets its headers and no body bytes, and
    the route GET matched is kept for the request's labels."""
    from service.api.guards import RequestGuard  # noqa: PLC0415
    from service.api.replay import AnswerCache  # noqa: PLC0415

    seen_methods: list[str] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        seen_methods.append(scope["method"])
        scope["route"] = "the GET route"
        await send({"type": "http.response.start", "status": 200, "headers": [(b"x", b"1")]})
        await send({"type": "http.response.body", "body": b"the answer", "more_body": False})

    guard = RequestGuard(
        app,
        body_limit=1024,
        batch_body_limit=1024,
        batch_path="/v1/batch",
        answers=AnswerCache(0),
        replayable_paths=frozenset(),
        on_replay=lambda stored: None,
    )
    sent: list[dict[str, Any]] = []

    async def send(message: Any) -> None:
        sent.append(message)

    async def receive() -> Any:
        return {"type": "http.request", "body": b"", "more_body": False}

    scope = {"type": "http", "method": "HEAD", "path": "/livez", "headers": [], "query_string": b""}
    anyio.run(guard, scope, receive, send)
    assert seen_methods == ["GET"]
    assert [m["type"] for m in sent] == ["http.response.start", "http.response.body"]
    assert sent[0]["status"] == 200 and sent[0]["headers"] == [(b"x", b"1")]
    assert sent[1]["body"] == b""
    assert scope["route"] == "the GET route"
