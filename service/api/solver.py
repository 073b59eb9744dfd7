"""The bridge between the async HTTP layer and the engine: where searches run,
how long they may take, and how many may wait.

* Answers already in the engine's cache of finished analyses (every 3x3
  position after the start-up solve) are served on the event loop: a lookup
  costs microseconds.
* Everything else runs in a thread pool of ``TTT_SEARCH_THREADS`` threads. The
  compiled core releases the GIL while it searches, so the searches really run
  on separate cores while the loop keeps serving.
* Every search has a deadline: the request's ``time_limit_ms`` or
  ``TTT_SEARCH_DEADLINE_MS``, whichever is shorter, counted from admission; a
  batch has one deadline for all its searches (``TTT_BATCH_DEADLINE_MS``). The
  node budget stays the load-independent knob; the deadline is the safety net,
  and an answer it cut says ``stopped_by: "deadline"``.
* Admission: searches start in arrival order. A request is refused at once
  with 503 and ``Retry-After`` when ``TTT_SEARCH_QUEUE`` searches already wait,
  or when it is expected to wait past its deadline: each search ahead of it
  is expected to take the typical (recent average) duration, and none runs
  past its own deadline (:meth:`Admission.expected_start`). A search admitted
  on a wrong guess still answers, with what it found in the time it had.
* A search whose client disconnects is cancelled within a few milliseconds;
  the request ends in Starlette's ``ClientDisconnect``, counted as 499.
* Drain: on SIGTERM, :meth:`Solver.drain` moves every deadline, of searches
  running and waiting alike, to inside the grace period. Each admitted request
  then gets an answer: the best found so far, or a 503 problem when it never
  started.
* A batch runs in one pass through the pool. Each search in it gets the full
  node budget (a batch answers exactly as single requests do) until the batch
  has spent ``TTT_BATCH_NODE_BUDGET`` nodes; after that its remaining searches
  get ``MIN_BATCH_ITEM_BUDGET`` nodes each and say so with ``exact: false``.
"""

from __future__ import annotations

import heapq
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import TypeVar

import anyio
from anyio import CapacityLimiter
from starlette.requests import ClientDisconnect, Request

from service.api.problems import ProblemError
from service.engine import (
    Analysis,
    Board,
    Difficulty,
    Engine,
    SearchCancelled,
    SearchControl,
    Suggestion,
    suggest,
)

MIN_BATCH_ITEM_BUDGET = 100  # enough for depth-1 estimates on any board
# How much each finished search moves the typical duration (a moving average).
TYPICAL_WEIGHT = 0.2
T = TypeVar("T")


class _Stop(Enum):
    CLIENT_LEFT = "client-left"
    NEVER_STARTED = "never-started"


class ClientLeft(ClientDisconnect):
    """The client disconnected, and its search was stopped: nobody to answer
    (the metrics count it as 499, see ``observe.py``)."""


@dataclass(frozen=True)
class MoveQuestion:
    board: Board
    difficulty: Difficulty
    seed: int | None
    time_limit_ms: int | None = None


class Admission:
    """The searches running and waiting, in arrival order, and how long searches
    typically take.

    Lives on the event loop: only its thread touches it, so it needs no lock.
    """

    def __init__(self, threads: int, queue: int) -> None:
        self.threads = threads
        self.queue = queue
        self.running: dict[SearchControl, float] = {}  # control -> when it started
        self.waiting: list[SearchControl] = []
        self.typical = 0.0  # moving average of search durations, in seconds
        self.drain_at: float | None = None

    def expected_start(self) -> float:
        """When a search that arrives now is expected to start: each search ahead
        of it takes the typical duration, and none runs past its deadline."""
        now = time.monotonic()
        free = [
            max(now, min(started + self.typical, _deadline(control)))
            for control, started in self.running.items()
        ]
        free += [now] * (self.threads - len(free))
        heapq.heapify(free)
        for control in self.waiting:
            start = heapq.heappop(free)
            heapq.heappush(free, max(start, min(start + self.typical, _deadline(control))))
        return free[0]

    def admit(self, deadline: float) -> SearchControl:
        """A control for a new search, or a 503 problem when it cannot be served in time."""
        if self.drain_at is not None:
            raise ProblemError(
                "service-unavailable",
                "the server is shutting down; retry on another replica",
                headers={"retry-after": "1"},
            )
        if len(self.waiting) >= self.queue and len(self.running) >= self.threads:
            raise ProblemError(
                "service-unavailable",
                "every search thread is busy and the queue is full; retry in a moment",
                headers={"retry-after": "1"},
            )
        start = self.expected_start()
        if start > deadline:
            raise ProblemError(
                "service-unavailable",
                "the searches ahead of this one would outlast its time limit; retry in a moment",
                headers={"retry-after": str(max(1, math.ceil(start - time.monotonic())))},
            )
        control = SearchControl(deadline)
        self.waiting.append(control)
        return control

    def start(self, control: SearchControl) -> None:
        self.waiting.remove(control)
        self.running[control] = time.monotonic()

    def finish(self, control: SearchControl) -> None:
        started = self.running.pop(control, None)
        if started is None:
            self.waiting.remove(control)
        else:
            self.typical += (time.monotonic() - started - self.typical) * TYPICAL_WEIGHT

    def drain(self, at: float) -> None:
        """Make every search, running or waiting, end by ``at``."""
        self.drain_at = at
        for control in [*self.running, *self.waiting]:
            control.shorten(at)


def _deadline(control: SearchControl) -> float:
    deadline = control.deadline
    assert deadline is not None  # every admitted search has one
    return deadline


class Solver:
    def __init__(
        self,
        engine: Engine,
        *,
        search_threads: int,
        search_queue: int,
        batch_node_budget: int,
        search_deadline_ms: int,
        batch_deadline_ms: int,
    ) -> None:
        self.engine = engine
        self.limiter = CapacityLimiter(search_threads)
        self.admission = Admission(search_threads, search_queue)
        self.batch_node_budget = batch_node_budget
        self.search_deadline = search_deadline_ms / 1000
        self.batch_deadline = batch_deadline_ms / 1000

    def drain(self, grace_seconds: float) -> None:
        """Shutdown has begun: every search ends inside the grace period, with margin."""
        margin = min(2.0, grace_seconds / 2)
        self.admission.drain(time.monotonic() + grace_seconds - margin)

    def deadline_for(self, time_limit_ms: int | None) -> float:
        limit = self.search_deadline
        if time_limit_ms is not None:
            limit = min(limit, time_limit_ms / 1000)
        return time.monotonic() + limit

    async def _off_loop(
        self, request: Request, deadline: float, work: Callable[[SearchControl], T]
    ) -> T:
        """Run ``work`` in the pool under a new control; cancel it if the client leaves.

        Nothing is raised inside the task group (it would arrive wrapped in an
        ExceptionGroup): the outcome is carried out of it and raised after.
        """
        control = self.admission.admit(deadline)
        try:
            async with anyio.create_task_group() as watchers:
                watchers.start_soon(_watch_disconnect, request, control)
                try:
                    outcome = await self._in_pool(control, work)
                finally:
                    watchers.cancel_scope.cancel()
        finally:
            self.admission.finish(control)
        if outcome is _Stop.CLIENT_LEFT:
            raise ClientLeft
        if outcome is _Stop.NEVER_STARTED:
            raise ProblemError(
                "service-unavailable",
                "the server is shutting down and this search never started; "
                "retry on another replica",
                headers={"retry-after": "1"},
            )
        return outcome

    async def _in_pool(
        self, control: SearchControl, work: Callable[[SearchControl], T]
    ) -> T | _Stop:
        async with self.limiter:
            if control.cancelled:
                return _Stop.CLIENT_LEFT
            if self.admission.drain_at is not None and time.monotonic() >= _deadline(control):
                return _Stop.NEVER_STARTED
            self.admission.start(control)
            try:
                return await anyio.to_thread.run_sync(work, control)
            except SearchCancelled:
                return _Stop.CLIENT_LEFT

    async def analyze(
        self, request: Request, board: Board, time_limit_ms: int | None = None
    ) -> Analysis:
        board.check_in_progress()
        cached = self.engine.cached_analysis(board)
        if cached is not None:
            return cached
        return await self._off_loop(
            request,
            self.deadline_for(time_limit_ms),
            lambda control: self.engine.search(board, control=control),
        )

    async def suggest(self, request: Request, question: MoveQuestion) -> Suggestion:
        analysis = await self.analyze(request, question.board, question.time_limit_ms)
        return suggest(analysis, question.difficulty, question.seed)

    async def suggest_many(
        self, request: Request, questions: list[MoveQuestion]
    ) -> list[Suggestion]:
        analyses: list[Analysis | None] = [self.engine.cached_analysis(q.board) for q in questions]
        if any(a is None for a in analyses):
            deadline = time.monotonic() + self.batch_deadline
            analyses = await self._off_loop(
                request, deadline, lambda control: self._search_all(questions, analyses, control)
            )
        return [
            suggest(a, q.difficulty, q.seed)
            for a, q in zip(analyses, questions, strict=True)
            if a is not None
        ]

    def _search_all(
        self,
        questions: list[MoveQuestion],
        analyses: list[Analysis | None],
        batch: SearchControl,
    ) -> list[Analysis | None]:
        """Every uncached item, in order, under the batch's one deadline (in a thread)."""
        done: list[Analysis | None] = []
        spent = 0
        for question, cached in zip(questions, analyses, strict=True):
            if cached is not None:
                done.append(cached)
                continue
            if batch.cancelled:
                raise SearchCancelled
            left = self.batch_node_budget - spent
            budget = max(MIN_BATCH_ITEM_BUDGET, min(self.engine.node_budget, left))
            control = batch
            if question.time_limit_ms is not None:
                # The item's own limit, inside the batch's; cancelling the batch
                # is seen between items.
                control = SearchControl(_deadline(batch))
                control.shorten(time.monotonic() + question.time_limit_ms / 1000)
            found = self.engine.search(question.board, node_budget=budget, control=control)
            spent += found.nodes
            done.append(found)
        return done


async def _watch_disconnect(request: Request, control: SearchControl) -> None:
    """Wait for the client to go away (the body has been read by now)."""
    while True:
        message = await request.receive()
        if message["type"] == "http.disconnect":
            control.cancel()
            return
