"""Deadlines: every search has one, an answer cut by it says so and is never
replayed, and a request that would wait past its deadline is refused at once."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from fastapi.testclient import TestClient

from service.api.problems import ProblemError
from service.api.solver import MIN_BATCH_ITEM_BUDGET, Admission
from service.app import create_app
from service.engine import Analysis, SearchControl
from service.settings import Settings
from tests.heavy import HARD, LONG_BUDGET, K, heavy, heavy_board
from tests.ops.waiting import HUNG_TEST_SECONDS, ready, sample, wait_for

HEAVY = {"board": HARD}  # 7x7, k=5: millions of nodes to settle


@pytest.fixture(scope="module")
def deep() -> TestClient:
    """A server whose node budget never runs out first: only deadlines stop searches."""
    app = create_app(Settings(node_budget=100_000_000, search_deadline_ms=400))
    with TestClient(app) as client:
        yield client


def scraped(client: TestClient, name: str) -> float:
    """One sample's value on the app's /metrics now."""
    return sample(client.get("/metrics").text, name)


def test_the_server_deadline_cuts_a_search_and_the_answer_says_so(deep: TestClient) -> None:
    # The budget (100,000,000 nodes) is far beyond 0.4 s: only the deadline stops it.
    answer = deep.post("/v1/analysis", json=HEAVY).json()
    assert answer["exact"] is False and answer["stopped_by"] == "deadline"
    assert answer["outcome"] is None and answer["depth"] >= 1


def test_a_request_may_ask_for_less_time(deep: TestClient) -> None:
    answer = deep.post("/v1/move", json={**HEAVY, "time_limit_ms": 30}).json()
    assert answer["stopped_by"] == "deadline" and answer["exact"] is False


def test_deadline_answers_are_never_replayed_or_cached(deep: TestClient) -> None:
    body = heavy()
    before = scraped(deep, "tictactoe_searches_total")
    for _ in range(3):
        answer = deep.post("/v1/move", json={**body, "time_limit_ms": 20}).json()
        assert answer["stopped_by"] == "deadline"
    response = deep.get("/v1/move", params={**body, "time_limit_ms": "20"})
    assert response.headers["cache-control"] == "no-store"
    assert scraped(deep, "tictactoe_searches_total") == before + 4  # every request searched again


def test_budget_answers_name_the_budget() -> None:
    with TestClient(create_app(Settings(node_budget=1_000))) as client:
        answer = client.post("/v1/analysis", json=HEAVY).json()
    assert answer["exact"] is False and answer["stopped_by"] == "budget"


def test_exact_answers_stopped_by_nothing(deep: TestClient) -> None:
    answer = deep.post("/v1/move", json={"board": "X...O...."}).json()
    assert answer["exact"] is True and answer["stopped_by"] is None


def test_a_batch_has_one_deadline_for_all_its_searches() -> None:
    settings = Settings(node_budget=100_000_000, batch_node_budget=10**9, batch_deadline_ms=500)
    boards = [heavy(i) for i in range(6)]
    with TestClient(create_app(settings)) as client:
        results = client.post("/v1/batch", json={"requests": boards}).json()["results"]
    # Six searches that each want far more than 0.5 s: the one deadline cut them all.
    assert {r["stopped_by"] for r in results} == {"deadline"}
    assert all(len(r["best_moves"]) >= 1 for r in results)


def test_a_batch_shares_its_node_budget_and_its_last_searches_get_the_minimum() -> None:
    # Five heavy positions, each wanting far more than the single-search budget
    # of 20,000 nodes: the first spends it all, the second the 10,000 left of
    # the batch's 30,000, and the last three the minimum each.
    single, batch = 20_000, 30_000
    settings = Settings(node_budget=single, batch_node_budget=batch, batch_deadline_ms=60_000)
    with TestClient(create_app(settings)) as client:
        before = scraped(client, "tictactoe_search_nodes_total")
        results = client.post("/v1/batch", json={"requests": [heavy(i) for i in range(5)]})
        spent = scraped(client, "tictactoe_search_nodes_total") - before
    assert results.status_code == 200
    assert all(r["stopped_by"] == "budget" for r in results.json()["results"])
    # Each search may overrun its budget by the few nodes it checks between
    # looks at its count; 5 searches at the full budget would spend 100,000.
    assert single + (batch - single) <= spent <= batch + 3 * MIN_BATCH_ITEM_BUDGET + 5_000


def control_ending_in(seconds: float) -> SearchControl:
    return SearchControl(time.monotonic() + seconds)


def test_admission_refuses_at_once_what_would_wait_past_its_deadline() -> None:
    admission = Admission(threads=1, queue=10)
    admission.typical[""] = 5.0  # searches have been taking five seconds
    running = admission.admit(time.monotonic() + 60)
    admission.start(running)
    with pytest.raises(ProblemError) as refused:
        admission.admit(time.monotonic() + 1)  # the running search needs ~5 s more
    assert refused.value.kind.status == 503
    assert refused.value.detail == (
        "the searches ahead of this one would outlast its time limit; retry in a moment"
    )
    assert 4 <= int(refused.value.headers["retry-after"]) <= 5  # the running one's ~5 s
    queued = admission.admit(time.monotonic() + 10)  # but 10 s is enough
    assert admission.waiting == [queued]


def test_admission_refuses_when_every_thread_is_busy_and_the_queue_full() -> None:
    admission = Admission(threads=1, queue=1)
    admission.start(admission.admit(time.monotonic() + 60))
    admission.admit(time.monotonic() + 60)  # queued
    with pytest.raises(ProblemError) as refused:
        admission.admit(time.monotonic() + 60)
    assert refused.value.detail == (
        "every search thread is busy and the queue is full; retry in a moment"
    )
    assert refused.value.headers == {"retry-after": "1"}


def test_admission_expects_no_search_to_outlast_its_deadline() -> None:
    admission = Admission(threads=1, queue=10)
    admission.typical[""] = 60.0
    running = admission.admit(time.monotonic() + 0.5)
    admission.start(running)
    assert admission.expected_start() <= time.monotonic() + 0.5
    admission.admit(time.monotonic() + 1)  # admitted: the running one ends by 0.5 s


def test_drain_moves_every_deadline_inside_the_grace_period() -> None:
    admission = Admission(threads=1, queue=10)
    running = admission.admit(time.monotonic() + 600)
    admission.start(running)
    waiting = admission.admit(time.monotonic() + 600)
    at = time.monotonic() + 3
    admission.drain(at)
    assert running.deadline is not None and running.deadline <= at + 1e-6
    assert waiting.deadline is not None and waiting.deadline <= at + 1e-6
    with pytest.raises(ProblemError) as refused:
        admission.admit(time.monotonic() + 600)  # nothing new once draining
    assert refused.value.detail == "the server is shutting down; retry on another replica"
    assert refused.value.headers == {"retry-after": "1"}


@pytest.mark.parametrize(("grace", "margin"), [(10.0, 2.0), (1.0, 0.5)])
def test_shutdown_ends_every_search_inside_the_grace_period_with_a_margin(
    grace: float, margin: float
) -> None:
    """On SIGTERM the server calls ``Solver.drain`` with its graceful timeout:
    searches must end ``margin`` before it (2 s, or half a short grace), so
    their answers are written before uvicorn stops waiting."""
    from service.api.solver import Solver  # noqa: PLC0415
    from service.engine import Engine  # noqa: PLC0415

    solver = Solver(
        Engine(table_bytes=1 << 16),
        search_threads=1,
        search_queue=1,
        batch_node_budget=1_000,
        search_deadline_ms=1_000,
        batch_deadline_ms=1_000,
    )
    running = solver.admission.admit(time.monotonic() + 600)
    solver.admission.start(running)
    before = time.monotonic()
    solver.drain(grace)
    after = time.monotonic()
    drain_at = solver.admission.drain_at
    assert drain_at is not None and before + grace - margin <= drain_at <= after + grace - margin
    # The Control keeps whole nanoseconds: its deadline is drain_at to the nanosecond.
    assert running.deadline == pytest.approx(drain_at, rel=0, abs=1e-9)
    with pytest.raises(ProblemError):
        solver.admission.admit(time.monotonic() + 600)


def test_a_search_still_waiting_when_shutdown_begins_never_starts() -> None:
    """One search thread, one search running and one waiting, then shutdown
    (``Solver.drain``, called on the app's loop as the server calls it): both
    get the same end; the running one answers when it comes, cut by the
    deadline, and the waiting one gets the thread only then, too late to
    start: a 503 that sends it to another replica."""
    app = create_app(
        Settings(
            node_budget=LONG_BUDGET,
            search_threads=1,
            search_queue=1,
            search_deadline_ms=600_000,
            rate_limit_rate=0,  # each 600 s search would cost a whole bucket
        )
    )
    answers: dict[int, Any] = {}

    with TestClient(app) as client:
        ready(client)
        solver = app.state.solver

        def ask(i: int) -> None:
            answers[i] = client.post("/v1/move", json=heavy(i))

        asking = [threading.Thread(target=ask, args=(i,), daemon=True) for i in (0, 1)]
        asking[0].start()
        wait_for("the first search to run", lambda: len(solver.admission.running) == 1)
        asking[1].start()
        wait_for("the second search to wait", lambda: len(solver.admission.waiting) == 1)
        client.portal.call(solver.drain, 1.0)
        for thread in asking:
            thread.join(HUNG_TEST_SECONDS)
    assert answers[0].status_code == 200, answers[0].text
    assert answers[0].json()["stopped_by"] == "deadline"
    refused = answers[1]
    assert refused.status_code == 503 and refused.headers["retry-after"] == "1"
    assert refused.json()["detail"] == (
        "the server is shutting down and this search never started; retry on another replica"
    )


def test_a_search_sees_its_deadline_moved_while_it_runs() -> None:
    """The core reads the deadline as it searches: shortening it from another
    thread stops a search that had an hour, and the answer says the deadline did."""
    from service.engine import Board, Engine, StopReason  # noqa: PLC0415

    # An hour's deadline, and a budget that takes about a minute on this board: if
    # the core missed the moved deadline, the search would end by its budget, or
    # not before the test gives up on it.
    engine = Engine(node_budget=LONG_BUDGET)
    board = Board.parse(heavy_board(), k=K)
    control = control_ending_in(3600)
    found: list[Analysis] = []
    searching = threading.Thread(
        target=lambda: found.append(engine.search(board, control=control)), daemon=True
    )
    searching.start()
    # Under way once it stores a bound in the shared table, empty until then (the
    # core counts its stores as it goes, its probes only at the end).
    wait_for(
        "the search under way",
        lambda: engine.stats().positions.entries > 0 or not searching.is_alive(),
    )
    assert searching.is_alive(), "the search ended before its deadline was moved"
    control.shorten(time.monotonic())
    searching.join(timeout=HUNG_TEST_SECONDS)
    assert not searching.is_alive(), "the search did not stop at its moved deadline"
    assert found[0].stopped_by is StopReason.DEADLINE and not found[0].exact


def test_a_request_limit_caps_the_server_deadline_and_never_raises_it() -> None:
    from service.api.solver import Solver  # noqa: PLC0415
    from service.engine import Engine  # noqa: PLC0415

    solver = Solver(
        Engine(),
        search_threads=1,
        search_queue=1,
        batch_node_budget=1,
        search_deadline_ms=60_000,
        batch_deadline_ms=60_000,
    )
    before = time.monotonic()
    assert solver.deadline_for(30) - before < 30  # 0.03 s, not the server's 60 s
    assert solver.deadline_for(600_000) - before <= 60 + (time.monotonic() - before)
    assert solver.deadline_for(None) - before > 59
