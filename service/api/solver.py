"""The bridge between the async HTTP layer and the synchronous engine.

It owns where engine work runs and how much of it may wait:

* Answers already in the engine's cache of finished analyses (every 3x3
  position after the start-up solve) are served on the event loop: a lookup
  costs microseconds.
* Everything else runs in a small thread pool (``TTT_SEARCH_THREADS``), so a
  search never blocks the loop; the GIL still lets the loop run between
  bytecodes, which keeps health checks and cached answers flowing.
* At most ``TTT_SEARCH_QUEUE`` searches wait for a thread; beyond that the
  answer is 503 with ``Retry-After``, so a burst of large boards cannot build a
  backlog that outlives the graceful shutdown.
* A search whose client disconnects is cancelled within a few milliseconds;
  the request ends in Starlette's ``ClientDisconnect``, counted as 499.
* A batch runs in one pass through the pool. Each search in it gets the full
  node budget (a batch answers exactly as single requests do) until the batch
  has spent ``TTT_BATCH_NODE_BUDGET`` nodes; after that its remaining searches
  get ``MIN_BATCH_ITEM_BUDGET`` nodes each and say so with ``exact: false``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
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
    Suggestion,
    suggest,
)

MIN_BATCH_ITEM_BUDGET = 100  # enough for depth-1 estimates on any board
T = TypeVar("T")


@dataclass(frozen=True)
class MoveQuestion:
    board: Board
    difficulty: Difficulty
    seed: int | None


class Solver:
    def __init__(
        self, engine: Engine, *, search_threads: int, search_queue: int, batch_node_budget: int
    ) -> None:
        self.engine = engine
        self.limiter = CapacityLimiter(search_threads)
        self.search_queue = search_queue
        self.batch_node_budget = batch_node_budget

    async def _off_loop(self, request: Request, work: Callable[[threading.Event], T]) -> T:
        """Run ``work`` in the pool; set its cancel event if the client leaves."""
        if self.limiter.statistics().tasks_waiting >= self.search_queue:
            raise ProblemError(
                "service-unavailable",
                "every search thread is busy and the queue is full; retry in a moment",
                headers={"retry-after": "1"},
            )
        cancel = threading.Event()
        try:
            async with anyio.create_task_group() as watchers:
                watchers.start_soon(_watch_disconnect, request, cancel)
                try:
                    result = await anyio.to_thread.run_sync(
                        lambda: work(cancel), limiter=self.limiter
                    )
                finally:
                    watchers.cancel_scope.cancel()
        except ExceptionGroup as group:  # anyio's task group wraps what its body raises
            if group.subgroup(SearchCancelled) is None:
                raise
            # No one to answer: the request observer counts it as 499.
            raise ClientDisconnect("the client went away; the search was stopped") from None
        return result

    async def analyze(self, request: Request, board: Board) -> Analysis:
        board.check_in_progress()
        cached = self.engine.cached_analysis(board)
        if cached is not None:
            return cached
        return await self._off_loop(
            request, lambda cancel: self.engine.search(board, cancel=cancel)
        )

    async def suggest(self, request: Request, question: MoveQuestion) -> Suggestion:
        analysis = await self.analyze(request, question.board)
        return suggest(analysis, question.difficulty, question.seed)

    async def suggest_many(
        self, request: Request, questions: list[MoveQuestion]
    ) -> list[Suggestion]:
        analyses: list[Analysis | None] = [self.engine.cached_analysis(q.board) for q in questions]
        if any(a is None for a in analyses):
            analyses = await self._off_loop(
                request, lambda cancel: self._search_all(questions, analyses, cancel)
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
        cancel: threading.Event,
    ) -> list[Analysis | None]:
        done: list[Analysis | None] = []
        spent = 0
        for question, cached in zip(questions, analyses, strict=True):
            if cached is not None:
                done.append(cached)
                continue
            left = self.batch_node_budget - spent
            budget = max(MIN_BATCH_ITEM_BUDGET, min(self.engine.node_budget, left))
            found = self.engine.search(question.board, node_budget=budget, cancel=cancel)
            spent += found.nodes
            done.append(found)
        return done


async def _watch_disconnect(request: Request, cancel: threading.Event) -> None:
    """Wait for the client to go away (the body has been read by now)."""
    while True:
        message = await request.receive()
        if message["type"] == "http.disconnect":
            cancel.set()
            return
