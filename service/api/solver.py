"""The bridge between the async HTTP layer and the synchronous engine.

It owns where engine work runs: answers already in the engine's cache of
finished analyses (every 3x3 position after the start-up solve) are served on
the event loop, since a lookup costs microseconds; everything else runs in a
small thread pool (``TTT_SEARCH_THREADS``), so a search never blocks the loop.
The GIL still lets the loop run between bytecodes (every 5 ms at most), which
keeps health checks and cached answers flowing while a search runs.

A batch shares one pass through the pool, and its searches get a share of the
node budget each (at least ``MIN_BATCH_ITEM_BUDGET``), so one batch costs about
as much as one large request.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import anyio
from anyio import CapacityLimiter

from service.engine import Analysis, Board, Difficulty, Engine, Suggestion, suggest

MIN_BATCH_ITEM_BUDGET = 2_000
T = TypeVar("T")


@dataclass(frozen=True)
class MoveQuestion:
    board: Board
    difficulty: Difficulty
    seed: int | None


class Solver:
    def __init__(self, engine: Engine, search_threads: int) -> None:
        self.engine = engine
        self.limiter = CapacityLimiter(search_threads)

    async def _off_loop(self, work: Callable[[], T]) -> T:
        return await anyio.to_thread.run_sync(work, limiter=self.limiter)

    async def analyze(self, board: Board) -> Analysis:
        board.check_in_progress()
        cached = self.engine.cached_analysis(board)
        if cached is not None:
            return cached
        return await self._off_loop(lambda: self.engine.search(board))

    async def suggest(self, question: MoveQuestion) -> Suggestion:
        analysis = await self.analyze(question.board)
        return suggest(analysis, question.difficulty, question.seed)

    async def suggest_many(self, questions: list[MoveQuestion]) -> list[Suggestion]:
        budget = max(MIN_BATCH_ITEM_BUDGET, self.engine.node_budget // max(1, len(questions)))

        def work() -> list[Suggestion]:
            return [
                suggest(self.engine.analyze(q.board, node_budget=budget), q.difficulty, q.seed)
                for q in questions
            ]

        cached = [self.engine.cached_analysis(q.board) for q in questions]
        if all(a is not None for a in cached):
            return [
                suggest(a, q.difficulty, q.seed)
                for a, q in zip(cached, questions, strict=True)
                if a is not None
            ]
        return await self._off_loop(work)
