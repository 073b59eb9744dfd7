"""Per-client limits: who a client is, what a request costs, the buckets, the 429s,
fair admission, and the buckets shared through a real Redis."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from service.api.limits import (
    Buckets,
    Client,
    Identify,
    Quota,
    hash_key,
    parse_networks,
    rate_limit_headers,
    search_cost,
)
from service.api.problems import ProblemError
from service.api.solver import Admission, ClientBusyError, SearchControl
from service.app import create_app
from service.settings import Settings
from tests.ops.waiting import ready, sample
from tests.redis_server import redis_server

QUOTA = Quota("default", rate=10.0, burst=100, searches=4)
BIG_BOARD = {"board": "." * 225, "time_limit_ms": 200}
SMALL_BOARD = {"board": "X........"}  # answered from the start-up solve: never searched


def scope(peer: str | None, **headers: str) -> dict[str, Any]:
    return {
        "type": "http",
        "client": (peer, 5000) if peer else None,
        "headers": [(k.replace("_", "-").encode(), v.encode()) for k, v in headers.items()],
    }


INGRESS = Identify(QUOTA, {}, parse_networks("10.0.0.0/8, 192.168.1.1"), require_key=False)
RFC_7239 = Identify(
    QUOTA, {}, parse_networks("10.0.0.0/8"), require_key=False, forwarded_header="forwarded"
)


@pytest.mark.parametrize(
    ("peer", "headers", "client"),
    [
        ("203.0.113.9", {}, "ip:203.0.113.9"),
        # From an untrusted peer, forwarding headers are the client's own word: ignored.
        ("203.0.113.9", {"x_forwarded_for": "198.51.100.1"}, "ip:203.0.113.9"),
        # From the ingress: the address it appended, read right to left past proxies.
        ("10.1.2.3", {"x_forwarded_for": "198.51.100.1"}, "ip:198.51.100.1"),
        ("10.1.2.3", {"x_forwarded_for": "198.51.100.1, 10.9.9.9"}, "ip:198.51.100.1"),
        ("10.1.2.3", {"x_forwarded_for": "6.6.6.6, 198.51.100.1"}, "ip:198.51.100.1"),
        ("192.168.1.1", {"x_forwarded_for": "198.51.100.1"}, "ip:198.51.100.1"),
        ("10.1.2.3", {"x_forwarded_for": "10.4.4.4, 10.5.5.5"}, "ip:10.4.4.4"),
        # The other header is the client's own (ingress-nginx passes Forwarded through).
        ("10.1.2.3", {"forwarded": "for=198.51.100.9"}, "ip:10.1.2.3"),
        (
            "10.1.2.3",
            {"forwarded": "for=198.51.100.9", "x_forwarded_for": "203.0.113.5"},
            "ip:203.0.113.5",
        ),
        # Malformed: ignored whole, never trusted, never a 500; the peer is the client.
        ("10.1.2.3", {"x_forwarded_for": "not-an-address, 198.51.100.1"}, "ip:10.1.2.3"),
        ("10.1.2.3", {"x_forwarded_for": ""}, "ip:10.1.2.3"),
        ("10.1.2.3", {"x_forwarded_for": "198.51.100.1:80"}, "ip:10.1.2.3"),
        ("10.1.2.3", {"x_forwarded_for": "1.2.3.4" + ",9" * 500}, "ip:10.1.2.3"),
        ("10.1.2.3", {"x_forwarded_for": "\u00ff\u00fe"}, "ip:10.1.2.3"),
        # IPv6 clients count by their /64; IPv4-mapped addresses as IPv4.
        ("2001:db8:1:2:3:4:5:6", {}, "ip:2001:db8:1:2::/64"),
        ("::ffff:198.51.100.7", {}, "ip:198.51.100.7"),
        # Not an address at all (a test client, a Unix socket): its name, bounded.
        ("testclient", {}, "peer:testclient"),
        (None, {}, "peer:unknown"),
    ],
)
def test_who_the_client_is(peer: str | None, headers: dict[str, str], client: str) -> None:
    assert INGRESS(scope(peer, **headers)).key == client


def test_header_lines_of_one_name_are_one_list_in_order() -> None:
    lines = [(b"x-forwarded-for", b"6.6.6.6"), (b"x-forwarded-for", b"198.51.100.1")]
    found = INGRESS({"type": "http", "client": ("10.1.2.3", 1), "headers": lines})
    assert found.key == "ip:198.51.100.1"


@pytest.mark.parametrize(
    ("peer", "headers", "client"),
    [
        (
            "10.1.2.3",
            {"forwarded": 'for=192.0.2.60;proto=http, for="[2001:db8:cafe::17]:4711"'},
            "ip:2001:db8:cafe::/64",
        ),
        ("10.1.2.3", {"forwarded": "for=192.0.2.60:8080"}, "ip:192.0.2.60"),
        ("10.1.2.3", {"forwarded": "For=192.0.2.60"}, "ip:192.0.2.60"),
        ("10.1.2.3", {"x_forwarded_for": "198.51.100.1"}, "ip:10.1.2.3"),
        ("203.0.113.9", {"forwarded": "for=192.0.2.60"}, "ip:203.0.113.9"),
        ("10.1.2.3", {"forwarded": "for=unknown"}, "ip:10.1.2.3"),
        ("10.1.2.3", {"forwarded": "for=_hidden"}, "ip:10.1.2.3"),
        ("10.1.2.3", {"forwarded": "proto=https"}, "ip:10.1.2.3"),
        ("10.1.2.3", {"forwarded": 'for="[2001:db8::1'}, "ip:10.1.2.3"),
    ],
)
def test_who_the_client_is_behind_a_proxy_that_sets_forwarded(
    peer: str, headers: dict[str, str], client: str
) -> None:
    assert RFC_7239(scope(peer, **headers)).key == client


@given(
    forwarded=st.binary(max_size=300),
    forwarded_for=st.binary(max_size=300),
    api_key=st.binary(max_size=200),
    peer=st.sampled_from(["10.1.2.3", "203.0.113.9", "::1", "testclient"]),
)
def test_any_header_bytes_give_a_client_or_a_400_never_a_crash(
    forwarded: bytes, forwarded_for: bytes, api_key: bytes, peer: str
) -> None:
    headers = [(b"forwarded", forwarded), (b"x-forwarded-for", forwarded_for)]
    headers.append((b"x-api-key", api_key))
    for identify in (INGRESS, RFC_7239):
        try:
            found = identify({"type": "http", "client": (peer, 1), "headers": headers})
        except ProblemError as refused:
            assert refused.kind.status == 400 and api_key
        else:
            assert len(found.key) <= 70  # bounded state, whatever was sent


KEYED = Quota("tournament", rate=1000.0, burst=5000, searches=16)


def keyed(require: bool) -> Identify:
    return Identify(QUOTA, {hash_key("s3cret-key"): KEYED}, (), require_key=require)


def test_a_known_key_is_the_client_with_its_own_quota() -> None:
    found = keyed(False)(scope("203.0.113.9", x_api_key="s3cret-key"))
    assert found == Client(f"key:{hash_key('s3cret-key')[:16]}", KEYED)
    assert "s3cret" not in found.key


def test_an_unknown_key_is_anonymous_unless_keys_are_required() -> None:
    assert keyed(False)(scope("203.0.113.9", x_api_key="guess")).key == "ip:203.0.113.9"
    for headers in ({"x_api_key": "guess"}, {}):
        with pytest.raises(ProblemError, match="X-API-Key") as refused:
            keyed(True)(scope("203.0.113.9", **headers))
        assert refused.value.kind.status == 401
    assert keyed(True)(scope("203.0.113.9", x_api_key="s3cret-key")).quota == KEYED


@pytest.mark.parametrize("key", ["k" * 129, "with space", "tab\tkey", "caf\u00e9"])
def test_a_key_that_cannot_be_a_key_is_a_400(key: str) -> None:
    with pytest.raises(ProblemError, match="1 to 128 visible ASCII") as refused:
        keyed(False)(
            {"type": "http", "client": None, "headers": [(b"x-api-key", key.encode("utf-8"))]}
        )
    assert refused.value.kind.status == 400


def test_a_bucket_holds_its_burst_and_refills_at_its_rate() -> None:
    buckets = Buckets(capacity=100)
    client = Client("ip:198.51.100.1", QUOTA)
    assert buckets.take_now(client, 60, now=0.0).allowed
    low = buckets.take_now(client, 60, now=0.0)
    assert not low.allowed and low.remaining == 40 and low.retry_after == pytest.approx(2.0)
    later = buckets.take_now(client, 60, now=2.0)  # 40 + 2 s x 10
    assert later.allowed and later.remaining == pytest.approx(0)
    assert later.reset == pytest.approx(10.0)  # empty to full at 10 a second
    assert buckets.take_now(client, 1, now=1_000.0).remaining == 99  # never more than the burst
    # A cost beyond the burst takes the whole bucket: any request can pass when it is full.
    assert buckets.take_now(Client("ip:198.51.100.2", QUOTA), 10**6, now=0.0).allowed


def test_buckets_are_bounded_and_drop_the_least_recent_client() -> None:
    buckets = Buckets(capacity=100)
    keep = Client("ip:198.51.100.1", QUOTA)
    buckets.take_now(keep, 100, now=0.0)
    for i in range(100_000):
        buckets.take_now(Client(f"ip:10.{i >> 16}.{(i >> 8) & 255}.{i & 255}", QUOTA), 1, now=0.0)
        if i % 50 == 0:
            buckets.take_now(keep, 0, now=0.0)
    assert len(buckets.buckets) == 100
    assert not buckets.take_now(keep, 1, now=0.0).allowed  # kept, and still empty


def test_a_search_costs_its_cells_times_its_seconds() -> None:
    assert [search_cost(cells, 0.8) for cells in (9, 25, 225, 400)] == [1, 2, 18, 32]
    assert search_cost(225, 0.1) < search_cost(225, 0.8)


def test_the_headers_follow_the_ietf_draft() -> None:
    client = Client("ip:198.51.100.1", QUOTA)
    headers = dict(rate_limit_headers(client, Buckets(10).take_now(client, 30, now=0.0)))
    assert headers[b"ratelimit-policy"] == (
        b'"default";q=100;w=10, "searches";q=4;qu="concurrent-requests"'
    )
    assert headers[b"ratelimit"] == b'"default";r=70;t=3'
    unlimited = Client("ip:198.51.100.1", Quota("default", 0.0, 1, 0))
    assert rate_limit_headers(unlimited, None) == []


# Fair admission -----------------------------------------------------------------


def test_a_client_with_its_share_of_searches_is_busy() -> None:
    admission = Admission(threads=1, queue=100)
    for _ in range(3):
        admission.admit(time.monotonic() + 60, "flood", searches=3)
    with pytest.raises(ClientBusyError):
        admission.admit(time.monotonic() + 60, "flood", searches=3)
    admission.admit(time.monotonic() + 60, "polite", searches=3)  # others are not affected


def test_a_free_thread_goes_to_the_client_with_the_fewest_searches_running() -> None:
    admission = Admission(threads=2, queue=100)
    flood = [admission.admit(time.monotonic() + 60, "flood") for _ in range(6)]
    admission.dispatch()
    assert list(admission.running) == flood[:2]
    polite = admission.admit(time.monotonic() + 60, "polite")
    other = admission.admit(time.monotonic() + 60, "other")
    admission.finish(flood[0])
    assert polite in admission.running  # before the flood's four waiting
    admission.finish(flood[1])
    assert other in admission.running
    admission.finish(polite)
    assert flood[2] in admission.running  # then the flood again, in its order
    assert admission.waiting == flood[3:]


def test_clients_with_equal_shares_are_served_in_turn() -> None:
    admission = Admission(threads=1, queue=100)
    first = admission.admit(time.monotonic() + 60, "a")
    admission.dispatch()
    a = [admission.admit(time.monotonic() + 60, "a") for _ in range(2)]
    b = [admission.admit(time.monotonic() + 60, "b") for _ in range(2)]
    order = []
    running = first
    for _ in range(4):
        admission.finish(running)
        [running] = admission.running
        order.append(running)
    assert order == [b[0], a[0], b[1], a[1]]


def test_a_newcomer_expects_to_start_when_the_first_running_search_ends() -> None:
    admission = Admission(threads=2, queue=100)
    admission.typical[""] = 1.0
    now = time.monotonic()
    for _ in range(2):
        admission.admit(now + 60, "flood")
    admission.dispatch()
    for _ in range(2):
        admission.admit(now + 60, "flood")
    # FIFO would put it after the flood's two waiting: ~2 s. Fair: ~1 s.
    assert admission.expected_start("polite") == pytest.approx(now + 1.0, abs=0.1)
    assert admission.expected_start("flood") == pytest.approx(now + 2.0, abs=0.1)


def test_in_a_full_queue_a_client_holding_many_gives_its_place_to_one_holding_few() -> None:
    admission = Admission(threads=1, queue=2)
    flood = [admission.admit(time.monotonic() + 60, "flood") for _ in range(3)]
    admission.dispatch()  # one running, two waiting: the queue is full
    polite = admission.admit(time.monotonic() + 60, "polite")
    assert admission.displaced == {flood[2]}  # the flood's newest waiting search
    assert admission.waiting == [flood[1], polite]
    admission.finish(flood[2])  # its request answers 429 and ends
    other = admission.admit(time.monotonic() + 60, "other")  # the flood still holds 2
    assert admission.displaced == {flood[1]}
    admission.finish(flood[1])
    with pytest.raises(ProblemError, match="queue is full"):
        admission.admit(time.monotonic() + 60, "third")  # one each: nobody gives way
    admission.finish(flood[0])
    assert list(admission.running) == [polite]
    assert admission.waiting == [other]
    assert not admission.displaced


def test_a_search_that_leaves_the_queue_frees_its_place() -> None:
    admission = Admission(threads=1, queue=100)
    controls: deque[SearchControl] = deque(admission.admit(time.monotonic() + 60, c) for c in "aab")
    admission.dispatch()
    admission.finish(controls[1])  # left while waiting
    assert admission.waiting == [controls[2]]
    assert dict(admission.held) == {"a": 1, "b": 1}
    admission.finish(controls[0])
    assert list(admission.running) == [controls[2]]
    admission.finish(controls[2])
    assert not admission.held and not admission.busy and not admission.queues


# Over HTTP ----------------------------------------------------------------------


@contextmanager
def served(settings: Settings) -> Iterator[TestClient]:
    """An app of ``settings`` behind a TestClient, its start-up solve done."""
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        ready(client)
        yield client


def test_over_its_rate_a_client_gets_a_429_with_retry_after_and_the_headers() -> None:
    with served(Settings(rate_limit_rate=0.5, rate_limit_burst=10)) as client:
        first = client.post("/v1/analysis", json=BIG_BOARD)
        assert first.status_code == 200
        assert first.headers["ratelimit-policy"].startswith('"default";q=10;w=20')
        spent = 1 + search_cost(225, 0.2)
        assert first.headers["ratelimit"] == f'"default";r={10 - spent};t={2 * spent}'
        refused = client.post("/v1/analysis", json=BIG_BOARD)
        assert refused.status_code == 429
        assert refused.headers["content-type"] == "application/problem+json"
        body = refused.json()
        assert body["type"] == "/problems/rate-limited" and body["reason"] == "rate"
        assert int(refused.headers["retry-after"]) >= 1
        assert refused.headers["ratelimit"].startswith('"default";r=')
        # Answers that need no search cost one unit each: a few still pass.
        assert client.post("/v1/move", json=SMALL_BOARD).status_code == 200
        assert client.get("/livez").status_code == 200  # probes are never limited
        scrape = client.get("/metrics").text
        assert sample(scrape, "tictactoe_requests_limited_total", reason="rate") == 1
        assert sample(scrape, "tictactoe_requests_limited_total", reason="concurrency") == 0


def test_a_batch_pays_for_its_items() -> None:
    with served(Settings(rate_limit_rate=0.001, rate_limit_burst=10, batch_limit=20)) as client:
        batch = {"requests": [SMALL_BOARD] * 8}
        answered = client.post("/v1/batch", json=batch)
        assert answered.status_code == 200
        assert answered.headers["ratelimit"].startswith('"default";r=1;')  # 10 - 1 - 8
        assert client.post("/v1/batch", json=batch).status_code == 429  # by the route
        assert client.post("/v1/move", json=SMALL_BOARD).status_code == 429  # at the door
        scrape = client.get("/metrics").text
        # A refusal at the door is counted under its route all the same.
        for route in ("/v1/batch", "/v1/move"):
            labels = {"method": "POST", "route": route, "status": "429"}
            assert sample(scrape, "http_requests_total", **labels) == 1


def test_one_client_at_its_share_of_searches_gets_429_and_another_is_served() -> None:
    settings = Settings(
        client_searches=2,
        search_threads=1,
        search_queue=50,
        node_budget=10**9,
        search_deadline_ms=1500,
        trusted_proxies="127.0.0.1",
    )

    async def flood_and_one_more() -> tuple[list[int], int, list[str]]:
        app = create_app(settings)
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 1234))
            async with httpx.AsyncClient(transport=transport, base_url="http://t") as http:
                while (await http.get("/readyz")).status_code != 200:
                    await asyncio.sleep(0.05)

                async def ask(who: str, body: dict[str, Any]) -> httpx.Response:
                    return await http.post(
                        "/v1/analysis", json=body, headers={"x-forwarded-for": who}
                    )

                flood = [
                    asyncio.create_task(ask("198.51.100.1", {**BIG_BOARD, "time_limit_ms": 1500}))
                    for _ in range(8)
                ]
                await asyncio.sleep(0.3)
                polite = await ask("198.51.100.2", {"board": "." * 16, "k": 3})
                flooded = await asyncio.gather(*flood)
                reasons = [r.json().get("reason") for r in flooded if r.status_code == 429]
                return [r.status_code for r in flooded], polite.status_code, reasons

    statuses, polite, reasons = asyncio.run(flood_and_one_more())
    assert sorted(statuses) == [200, 200] + [429] * 6
    assert reasons == ["concurrency"] * 6
    assert polite == 200


def test_the_access_log_names_the_key_by_its_hash_never_the_key(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    keys = tmp_path / "keys.json"
    keys.write_text(json.dumps({"keys": [{"name": "bot", "sha256": hash_key("s3cret-key")}]}))
    with served(Settings(api_keys_file=keys)) as client, caplog.at_level(logging.INFO):
        from service.api.observe import access_log  # noqa: PLC0415

        access_log.propagate = True
        try:
            answer = client.post("/v1/move", json=SMALL_BOARD, headers={"x-api-key": "s3cret-key"})
        finally:
            access_log.propagate = False
    assert answer.headers["ratelimit-policy"].startswith('"bot";')
    lines = {  # pytest's two capturing handlers may both hold it
        r.getMessage()
        for r in caplog.records
        if r.name == "service.access" and '"/v1/move"' in r.getMessage()
    }
    [line] = lines
    assert json.loads(line)["client"] == f"key:{hash_key('s3cret-key')[:16]}"
    assert "s3cret" not in caplog.text


def test_a_key_refused_at_the_door_is_a_problem_and_nothing_else_runs(tmp_path: Path) -> None:
    keys = tmp_path / "keys.json"
    keys.write_text(json.dumps({"keys": [{"name": "bot", "sha256": hash_key("s3cret-key")}]}))
    with served(Settings(api_keys_file=keys, require_api_key=True)) as client:
        missing = client.post("/v1/move", json=SMALL_BOARD)
        assert missing.status_code == 401
        assert missing.json()["type"] == "/problems/api-key-required"
        assert missing.headers["www-authenticate"] == 'ApiKey header="X-API-Key"'
        unknown = client.post("/v1/move", json=SMALL_BOARD, headers={"x-api-key": "guess"})
        assert unknown.status_code == 401 and "known X-API-Key" in unknown.json()["detail"]
        long_key = client.post("/v1/move", json=SMALL_BOARD, headers={"x-api-key": "k" * 129})
        assert long_key.status_code == 400
        assert long_key.json()["type"] == "/problems/invalid-api-key"
        assert "k" * 129 not in long_key.text  # a key is never echoed
        known = client.post("/v1/move", json=SMALL_BOARD, headers={"x-api-key": "s3cret-key"})
        assert known.status_code == 200
        assert client.get("/livez").status_code == 200  # probes need no key
        assert client.get("/metrics").status_code == 200


def test_the_documented_keys_file_is_one_the_server_reads() -> None:
    keys = Settings(api_keys_file=Path(__file__).parents[2] / "examples/api-keys.json").api_keys
    assert keys[hash_key("example-key-change-me")] == Quota("tournament-bot", 200.0, 4000, 16)
    assert keys[hash_key("another-example-key")] == Quota("playground", 20.0, 400, 4)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("trusted_proxies", "10.0.0.0/33"),
        ("trusted_proxies", "proxy.example"),
        ("rate_limit_store", "memcached://x"),
        ("api_keys_file", "/nonexistent/keys.json"),
        ("rate_limit_rate", -1),
    ],
)
def test_bad_limit_settings_stop_the_start(name: str, value: object) -> None:
    with pytest.raises(ValidationError, match=name):
        Settings(**{name: value})


def test_a_keys_file_without_hashes_stops_the_start(tmp_path: Path) -> None:
    keys = tmp_path / "keys.json"
    keys.write_text(json.dumps({"keys": [{"name": "bot", "sha256": "s3cret-key"}]}))
    with pytest.raises(ValidationError, match="64 hex digits"):
        Settings(api_keys_file=keys)


# Across replicas: a real redis-server ----------------------------------------------


def test_two_replicas_with_one_redis_enforce_one_limit(tmp_path: Path) -> None:
    with redis_server(tmp_path) as url:
        settings = Settings(rate_limit_store=url, rate_limit_rate=0.01, rate_limit_burst=30)
        with served(settings) as one, served(settings) as two:
            statuses = [
                (one if i % 2 else two).post("/v1/move", json=SMALL_BOARD).status_code
                for i in range(40)
            ]
            assert statuses.count(200) == 30 and statuses[30:] == [429] * 10
            scrape = one.get("/metrics").text
            assert sample(scrape, "tictactoe_rate_limit_store_up") == 1
        # Each replica alone would have let 30 through: 60 in all.


def test_without_redis_each_replica_limits_alone_and_says_so(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with redis_server(tmp_path) as url:
        pass  # started and stopped: nothing listens on its port now
    settings = Settings(rate_limit_store=url, rate_limit_rate=0.01, rate_limit_burst=5)
    with caplog.at_level(logging.WARNING, "service.api"), served(settings) as client:
        statuses = [client.post("/v1/move", json=SMALL_BOARD).status_code for _ in range(7)]
        assert statuses == [200] * 5 + [429] * 2  # the replica's own buckets
        assert sample(client.get("/metrics").text, "tictactoe_rate_limit_store_up") == 0
    assert "rate limit store unreachable" in caplog.text
