"""What the Python client sends again, and how long it waits, and the headers it
sends: scripted answers through ``httpx.MockTransport``, waits recorded instead
of slept."""

from __future__ import annotations

import asyncio
import email.utils
import time
from collections.abc import Iterator

import httpx
import pytest

from tests.server import free_port
from tictactoe_client import AsyncClient, Client, MoveRequest, Problem, ProblemError
from tictactoe_client.retries import MAX_RETRY_AFTER, retry_after

URL = "http://tictactoe.test"
HEALTHY = httpx.Response(200, json={"status": "ok"})
# A scripted step: an answer, or a transport error to raise.
Step = httpx.Response | httpx.TransportError


def problem(
    status: int, headers: dict[str, str] | None = None, **extensions: str
) -> httpx.Response:
    body = {"type": f"/problems/{status}", "title": "t", "status": status, "detail": "d"}
    body |= extensions
    return httpx.Response(
        status, json=body, headers={"content-type": "application/problem+json", **(headers or {})}
    )


class Script:
    """Answers requests with the steps in turn, recording every request sent."""

    def __init__(self, *steps: Step) -> None:
        self.steps: Iterator[Step] = iter(steps)
        self.sent: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.sent.append(request)
        step = next(self.steps)
        if isinstance(step, httpx.TransportError):
            raise step
        # A fresh copy: httpx binds a response to the client that received it.
        return httpx.Response(step.status_code, headers=step.headers, content=step.content)


def scripted(
    script: Script, retries: int = 3, api_key: str | None = None
) -> tuple[Client, list[float]]:
    waits: list[float] = []
    http = httpx.Client(transport=httpx.MockTransport(script))
    client = Client(URL, retries=retries, api_key=api_key, http_client=http, sleep=waits.append)
    return client, waits


def connect_error() -> httpx.ConnectError:
    return httpx.ConnectError("connection refused")


@pytest.mark.parametrize(
    ("steps", "waits"),
    [
        ([problem(503), HEALTHY], [0.5]),
        ([problem(503), problem(503), problem(503), HEALTHY], [0.5, 1.0, 2.0]),
        ([problem(503, {"retry-after": "3"}), HEALTHY], [3.0]),
        ([problem(503), problem(503), problem(503, {"retry-after": "1"}), HEALTHY], [0.5, 1, 2]),
        ([problem(503, {"retry-after": "3600"}), HEALTHY], [MAX_RETRY_AFTER]),
        ([problem(503, {"retry-after": "soon"}), HEALTHY], [0.5]),
        ([connect_error(), HEALTHY], [0.5]),
        ([httpx.ReadTimeout("slow"), problem(503), HEALTHY], [0.5, 1.0]),
        ([httpx.RemoteProtocolError("closed mid-answer"), HEALTHY], [0.5]),
        ([problem(429, {"retry-after": "1"}, reason="rate"), HEALTHY], [1.0]),
        ([problem(429, {"retry-after": "4"}, reason="concurrency"), HEALTHY], [4.0]),
        ([problem(429), problem(503), problem(429, {"retry-after": "1"}), HEALTHY], [0.5, 1, 2]),
        ([problem(429, {"retry-after": "3600"}), HEALTHY], [MAX_RETRY_AFTER]),
    ],
    ids=[
        "503-once",
        "503-thrice",
        "retry-after",
        "backoff-longer-than-retry-after",
        "retry-after-capped",
        "retry-after-unreadable",
        "connect-error",
        "timeout-then-503",
        "connection-closed",
        "429-rate",
        "429-concurrency",
        "429-and-503-share-the-retries",
        "429-retry-after-capped",
    ],
)
def test_transient_failures_are_retried_with_backoff(steps: list[Step], waits: list[float]) -> None:
    script = Script(*steps)
    client, waited = scripted(script)
    assert client.health().status == "ok"
    assert waited == waits
    assert len(script.sent) == len(steps)


def test_retry_after_as_an_http_date_is_honoured() -> None:
    later = email.utils.formatdate(time.time() + 5, usegmt=True)
    client, waited = scripted(Script(problem(503, {"retry-after": later}), HEALTHY))
    client.health()
    assert 3.5 < waited[0] <= 5.0


@pytest.mark.parametrize("status", [400, 401, 404, 408, 413, 415, 422, 500])
def test_other_errors_are_never_retried(status: int) -> None:
    script = Script(problem(status, {"retry-after": "1"}), HEALTHY)
    client, waited = scripted(script)
    with pytest.raises(ProblemError) as caught:
        client.move("X........")
    assert caught.value.status == status
    assert (len(script.sent), waited) == (1, [])


def test_a_503_past_the_last_retry_is_raised() -> None:
    script = Script(*[problem(503, {"retry-after": "1"})] * 3)
    client, waited = scripted(script, retries=2)
    with pytest.raises(ProblemError) as caught:
        client.analysis("X........")
    assert caught.value.status == 503
    assert (len(script.sent), waited) == (3, [1.0, 1.0])


def test_a_429_past_the_last_retry_is_raised_with_its_reason_and_wait() -> None:
    script = Script(*[problem(429, {"retry-after": "7"}, reason="concurrency")] * 3)
    client, waited = scripted(script, retries=2)
    with pytest.raises(ProblemError) as caught:
        client.move("X........")
    error = caught.value
    assert (error.status, error.type, error.raw["reason"]) == (429, "/problems/429", "concurrency")
    assert error.retry_after == 7.0
    assert (len(script.sent), waited) == (3, [7.0, 7.0])


@pytest.mark.parametrize(
    ("headers", "seconds"),
    [({"retry-after": "120"}, 120.0), ({"retry-after": "soon"}, None), ({}, None)],
    ids=["seconds-uncapped", "unreadable", "absent"],
)
def test_a_final_problem_tells_the_wait_it_was_given(
    headers: dict[str, str], seconds: float | None
) -> None:
    client, _ = scripted(Script(problem(429, headers, reason="rate")), retries=0)
    with pytest.raises(ProblemError) as caught:
        client.health()
    assert caught.value.retry_after == seconds


def test_a_chunks_problem_keeps_its_wait() -> None:
    refused = {**problem(422).json(), "errors": [{"pointer": "/requests/0/board", "detail": "d"}]}
    chunk = httpx.Response(200, json={"results": [refused]})
    script = Script(chunk, problem(429, {"retry-after": "5"}, reason="rate"))
    http = httpx.Client(transport=httpx.MockTransport(script))
    client = Client(URL, retries=0, batch_limit=1, http_client=http)
    with pytest.raises(ProblemError) as caught:
        client.batch(["X........", "O........"])
    assert (caught.value.raw["reason"], caught.value.retry_after) == ("rate", 5.0)


def test_the_api_key_goes_with_every_request_and_retry() -> None:
    script = Script(problem(429, {"retry-after": "1"}), problem(503), HEALTHY, HEALTHY)
    client, _ = scripted(script, api_key="k3y-0f-~40-chars!")
    client.health()
    client.health()
    assert [request.headers["x-api-key"] for request in script.sent] == ["k3y-0f-~40-chars!"] * 4


def test_without_an_api_key_none_is_sent() -> None:
    script = Script(HEALTHY)
    client, _ = scripted(script)
    client.health()
    assert "x-api-key" not in script.sent[0].headers


SECRET = "s3cret"


@pytest.mark.parametrize(
    ("api_key", "fault"),
    [
        ("", "it is empty"),
        (SECRET * 22, "it has 132 characters"),
        (f"{SECRET} 1", "character 7 is outside that range"),
        (f"{SECRET}\t", "character 7 is outside that range"),
        (f"\n{SECRET}", "character 1 is outside that range"),
        (f"{SECRET}\x7f", "character 7 is outside that range"),
        (f"{SECRET}\u00e9", "character 7 is outside that range"),
    ],
    ids=["empty", "too-long", "space", "tab", "newline", "delete", "non-ascii"],
)
@pytest.mark.parametrize("kind", [Client, AsyncClient])
def test_a_malformed_api_key_is_refused_without_being_echoed(
    kind: type[Client] | type[AsyncClient], api_key: str, fault: str
) -> None:
    with pytest.raises(ValueError) as caught:
        kind(URL, api_key=api_key)
    message = str(caught.value)
    assert message.startswith("api_key must be 1 to 128 visible ASCII characters (0x21-0x7E)")
    assert fault in message
    assert SECRET not in message and repr(api_key) not in message


@pytest.mark.parametrize("api_key", ["!", "~" * 128, "Ab0-_.:/+=~!"])
def test_a_well_formed_api_key_is_taken(api_key: str) -> None:
    Client(URL, api_key=api_key).close()


def test_a_transport_error_past_the_last_retry_is_raised() -> None:
    script = Script(*[connect_error()] * 4)
    client, waited = scripted(script)
    with pytest.raises(httpx.ConnectError):
        client.health()
    assert (len(script.sent), waited) == (4, [0.5, 1.0, 2.0])


def test_no_retries_means_one_attempt() -> None:
    script = Script(problem(503))
    client, waited = scripted(script, retries=0)
    with pytest.raises(ProblemError):
        client.health()
    assert (len(script.sent), waited) == (1, [])


def test_waits_stop_growing_at_the_cap() -> None:
    script = Script(*[problem(503)] * 7, HEALTHY)
    client, waited = scripted(script, retries=7)
    client.health()
    assert waited == [0.5, 1.0, 2.0, 4.0, 8.0, 8.0, 8.0]


def test_each_call_has_its_own_retries() -> None:
    script = Script(problem(503), problem(503), HEALTHY, problem(503), problem(503), HEALTHY)
    client, waited = scripted(script, retries=2)
    client.health()
    client.health()
    assert waited == [0.5, 1.0, 0.5, 1.0]


def test_a_batch_retries_each_chunk_alone() -> None:
    refused = {
        **problem(422).json(),
        "errors": [{"pointer": "/requests/0/board", "detail": "d"}],
    }
    chunk = httpx.Response(200, json={"results": [refused]})
    script = Script(chunk, problem(503), chunk)
    waits: list[float] = []
    http = httpx.Client(transport=httpx.MockTransport(script))
    with Client(URL, batch_limit=1, http_client=http, sleep=waits.append) as client:
        results = client.batch([MoveRequest("XX......."), MoveRequest("OO.......")])
    assert len(script.sent) == 3 and waits == [0.5]
    assert [r.errors[0].pointer for r in results if isinstance(r, Problem)] == [
        "/requests/0/board",
        "/requests/1/board",
    ]


def test_the_async_client_retries_alike() -> None:
    script = Script(
        connect_error(),
        problem(503, {"retry-after": "2"}),
        problem(429, {"retry-after": "3"}),
        HEALTHY,
        *[problem(429, {"retry-after": "9"}, reason="rate")] * 4,
    )
    waits: list[float] = []

    async def record(seconds: float) -> None:
        waits.append(seconds)

    async def run() -> ProblemError:
        http = httpx.AsyncClient(transport=httpx.MockTransport(script))
        async with AsyncClient(
            URL, retries=3, api_key="key", http_client=http, sleep=record
        ) as client:
            await client.health()
            with pytest.raises(ProblemError) as caught:
                await client.move("X........")
        await http.aclose()
        return caught.value

    error = asyncio.run(run())
    assert (error.status, error.raw["reason"], error.retry_after) == (429, "rate", 9.0)
    assert waits == [0.5, 2.0, 3.0, 9.0, 9.0, 9.0] and len(script.sent) == 8
    assert {request.headers["x-api-key"] for request in script.sent} == {"key"}


def test_an_unreachable_server_is_retried_then_raised() -> None:
    waits: list[float] = []
    with (
        Client(f"http://127.0.0.1:{free_port()}", sleep=waits.append) as client,
        pytest.raises(httpx.ConnectError),
    ):
        client.health()
    assert waits == [0.5, 1.0, 2.0]


@pytest.mark.parametrize(
    ("response", "title", "detail"),
    [
        (httpx.Response(502, html="<h1>Bad Gateway</h1>"), "Bad Gateway", "<h1>Bad Gateway</h1>"),
        (
            httpx.Response(500, text=""),
            "Internal Server Error",
            "the server answered 500 without a body",
        ),
        (httpx.Response(404, json={"message": "no"}), "Not Found", '{"message":"no"}'),
    ],
    ids=["html", "empty", "json-but-not-a-problem"],
)
def test_an_answer_that_is_no_problem_becomes_about_blank(
    response: httpx.Response, title: str, detail: str
) -> None:
    client, _ = scripted(Script(response))
    with pytest.raises(ProblemError) as caught:
        client.health()
    assert (caught.value.type, caught.value.status) == ("about:blank", response.status_code)
    assert (caught.value.title, caught.value.detail, caught.value.raw) == (title, detail, {})


def test_a_problem_with_unreadable_extensions_keeps_its_core() -> None:
    body = {"type": "/problems/x", "title": "t", "status": 422, "detail": "d", "errors": "oops"}
    client, _ = scripted(Script(httpx.Response(422, json=body)))
    with pytest.raises(ProblemError) as caught:
        client.health()
    assert (caught.value.type, caught.value.errors, caught.value.raw) == ("/problems/x", (), body)


@pytest.mark.parametrize(
    ("value", "seconds"),
    [("0", 0.0), (" 7 ", 7.0), ("-1", None), ("1.5", None), ("", None)],
)
def test_retry_after_reads_whole_seconds(value: str, seconds: float | None) -> None:
    assert retry_after(value) == seconds


def test_a_retry_after_date_in_the_past_means_now() -> None:
    assert retry_after("Thu, 01 Jan 1970 00:00:00 GMT") == 0.0
