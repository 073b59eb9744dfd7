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
* Admission, per client first (``limits.py`` says who the client is): a
  client with its ``TTT_CLIENT_SEARCHES`` searches running or waiting gets a
  429 (``concurrency``), and one whose bucket lacks the search's cost a 429
  (``rate``). Then for everyone: a 503 with ``Retry-After`` when
  ``TTT_SEARCH_QUEUE`` searches already wait, or when the search is expected
  to wait past its deadline: each search ahead of it is expected to take the
  typical (recent average) duration, and none runs past its own deadline
  (:meth:`Admission.expected_start`). A search admitted on a wrong guess still
  answers, with what it found in the time it had.
* Fair queueing: a free thread goes to the waiting client with the fewest
  searches running, then to the one served least recently, so a client with a
  single search waits for at most the searches already running, however many
  another client has queued.
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
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import TypeVar

import anyio
from starlette.requests import ClientDisconnect, Request

from service.api.limits import Client, Limits, search_cost
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
    DISPLACED = "displaced"


class ClientLeft(ClientDisconnect):
    """The client disconnected, and its search was stopped: nobody to answer
    (the metrics count it as 499, see ``observe.py``)."""


@dataclass(frozen=True)
class MoveQuestion:
    board: Board
    difficulty: Difficulty
    seed: int | None
    time_limit_ms: int | None = None


class ClientBusyError(Exception):
    """The client already has its quota of searches running or waiting."""


class Admission:
    """The searches running and waiting, whose they are, the order in which the
    waiting ones start, and how long searches typically take.

    Fair queueing: when a thread frees, the next search is the oldest of the
    waiting client with the fewest searches running, ties going to the client
    served least recently (:func:`next_client`). A client with many searches
    waiting therefore delays one with a single search by at most the searches
    already running. ``expected_start`` plays the same order forward.

    Lives on the event loop: only its thread touches it, so it needs no lock.
    """

    def __init__(self, threads: int, queue: int) -> None:
        self.threads = threads
        self.queue = queue
        self.running: dict[SearchControl, float] = {}  # control -> when it started
        # Per client, its waiting searches oldest first.
        self.queues: dict[str, deque[SearchControl]] = {}
        # When each client holding searches was last served (a count of starts).
        self.served: dict[str, int] = {}
        self.starts = 0
        self.owner: dict[SearchControl, str] = {}
        self.held: Counter[str] = Counter()  # searches running or waiting, per client
        self.busy: Counter[str] = Counter()  # searches running, per client
        self.turns: dict[SearchControl, anyio.Event] = {}
        # Moving averages of search durations in seconds, by kind (the board's
        # longer side, or "batch"): a 3x3 lookup does not make a 20x20 search look short.
        self.typical: dict[str, float] = {}
        self.kind: dict[SearchControl, str] = {}
        # Waiting searches taken out of a full queue for a client with fewer.
        self.displaced: set[SearchControl] = set()
        self.drain_at: float | None = None

    @property
    def waiting(self) -> list[SearchControl]:
        return [control for queue in self.queues.values() for control in queue]

    def expected_start(self, client: str = "") -> float:
        """When a search of ``client`` that arrives now is expected to start, in the
        fair order: each search ahead of it takes the typical duration, and none runs
        past its deadline."""
        now = time.monotonic()
        ends = [
            (
                max(now, min(started + self.duration(control), _deadline(control))),
                self.owner[control],
            )
            for control, started in self.running.items()
        ]
        heapq.heapify(ends)
        idle = self.threads - len(ends)
        busy = Counter(self.busy)
        served = dict(self.served)
        queues = {owner: deque(queue) for owner, queue in self.queues.items()}
        mine = len(queues.setdefault(client, deque()))
        starts = self.starts
        while True:
            if idle > 0:
                idle -= 1
                at = now
            else:
                at, finished = heapq.heappop(ends)
                busy[finished] -= 1
            owner = next_client(queues, busy, served, client, mine)
            if owner == client and mine == 0:
                return at
            control = queues[owner].popleft()
            if owner == client:
                mine -= 1
            starts += 1
            served[owner] = starts
            busy[owner] += 1
            end = max(at, min(at + self.duration(control), _deadline(control)))
            heapq.heappush(ends, (end, owner))

    def duration(self, control: SearchControl) -> float:
        """How long a search of ``control``'s kind typically takes (0 until one has run)."""
        return self.typical.get(self.kind[control], 0.0)

    def admit(
        self, deadline: float, client: str = "", searches: int = 0, kind: str = ""
    ) -> SearchControl:
        """A control for a new search of ``client``; :class:`ClientBusyError` when it has
        ``searches`` (0: no cap) running or waiting, a 503 problem when the search
        cannot be served in time."""
        if self.drain_at is not None:
            raise ProblemError(
                "service-unavailable",
                "the server is shutting down; retry on another replica",
                headers={"retry-after": "1"},
            )
        if searches and self.held[client] >= searches:
            raise ClientBusyError
        victim = None
        waiting = len(self.owner) - len(self.running) - len(self.displaced)
        if waiting >= self.queue and len(self.running) >= self.threads:
            victim = self.displaceable(client)
            if victim is None:
                raise ProblemError(
                    "service-unavailable",
                    "every search thread is busy and the queue is full; retry in a moment",
                    headers={"retry-after": "1"},
                )
        start = self.expected_start(client)
        if start > deadline:
            raise ProblemError(
                "service-unavailable",
                "the searches ahead of this one would outlast its time limit; retry in a moment",
                headers={"retry-after": str(max(1, math.ceil(start - time.monotonic())))},
            )
        if victim is not None:
            self.displace(victim)
        control = SearchControl(deadline)
        self.queues.setdefault(client, deque()).append(control)
        self.owner[control] = client
        self.kind[control] = kind
        self.held[client] += 1
        return control

    def displaceable(self, client: str) -> SearchControl | None:
        """With the queue full: the newest waiting search of the client holding the
        most searches, if it holds at least two more than ``client``."""
        owner = max(self.queues, key=lambda owner: self.held[owner], default=None)
        if owner is None or self.held[owner] < self.held[client] + 2:
            return None
        return self.queues[owner][-1]

    def _unqueue(self, control: SearchControl) -> str:
        """Take a waiting search out of its client's queue; that client."""
        owner = self.owner[control]
        queue = self.queues[owner]
        queue.remove(control)
        if not queue:
            del self.queues[owner]
        return owner

    def displace(self, control: SearchControl) -> None:
        """Take a waiting search out of the queue; its request answers 429."""
        self._unqueue(control)
        self.displaced.add(control)
        turn = self.turns.pop(control, None)
        if turn is not None:
            turn.set()

    def start(self, control: SearchControl) -> None:
        """Take ``control`` from its queue and run it."""
        owner = self._unqueue(control)
        self.running[control] = time.monotonic()
        self.busy[owner] += 1
        self.starts += 1
        self.served[owner] = self.starts
        turn = self.turns.pop(control, None)
        if turn is not None:
            turn.set()

    def dispatch(self) -> None:
        """Start waiting searches, in the fair order, while threads are free."""
        while len(self.running) < self.threads and self.queues:
            owner = next_client(self.queues, self.busy, self.served)
            self.start(self.queues[owner][0])

    async def turn(self, control: SearchControl) -> None:
        """Wait until ``control`` runs, or is displaced."""
        self.dispatch()
        if control not in self.running and control not in self.displaced:
            event = self.turns[control] = anyio.Event()
            await event.wait()

    def finish(self, control: SearchControl) -> None:
        started = self.running.pop(control, None)
        if control in self.displaced:
            self.displaced.discard(control)
        elif started is None:
            self._unqueue(control)
        owner = self.owner.pop(control)
        kind = self.kind.pop(control)
        self.held[owner] -= 1
        if not self.held[owner]:
            del self.held[owner]
            self.served.pop(owner, None)
        self.turns.pop(control, None)
        if started is not None:
            self.busy[owner] -= 1
            if not self.busy[owner]:
                del self.busy[owner]
            typical = self.typical.get(kind)
            took = time.monotonic() - started
            self.typical[kind] = (
                took if typical is None else typical + (took - typical) * TYPICAL_WEIGHT
            )
        self.dispatch()

    def drain(self, at: float) -> None:
        """Make every search, running or waiting, end by ``at``."""
        self.drain_at = at
        for control in [*self.running, *self.waiting]:
            control.shorten(at)


def next_client(
    queues: dict[str, deque[SearchControl]],
    busy: Counter[str],
    served: dict[str, int],
    newcomer: str | None = None,
    ahead: int = 0,
) -> str:
    """The client whose search starts next: the fewest searches running, then the
    one served least recently (a client never served yet first).

    ``newcomer`` with ``ahead`` searches before its new one counts as waiting
    even when its queue is empty (the search that is being admitted)."""
    waiting = [
        owner for owner, queue in queues.items() if queue or (owner == newcomer and ahead == 0)
    ]
    return min(waiting, key=lambda owner: (busy[owner], served.get(owner, 0)))


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
        limits: Limits | None = None,
    ) -> None:
        self.engine = engine
        self.limits = limits
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
        self,
        request: Request,
        deadline: float,
        cost: int,
        kind: str,
        work: Callable[[SearchControl], T],
    ) -> T:
        """Run ``work`` in the pool under a new control; cancel it if the client leaves.

        The client (``limits.py``) must have a search to spare and ``cost`` units in
        its bucket, or the answer is a 429. Nothing is raised inside the task group
        (it would arrive wrapped in an ExceptionGroup): the outcome is carried out
        of it and raised after.
        """
        state = request.scope.setdefault("state", {})
        client: Client | None = state.get("client")
        try:
            control = self.admission.admit(
                deadline,
                client.key if client else "",
                client.quota.searches if client else 0,
                kind,
            )
        except ClientBusyError:
            assert self.limits is not None and client is not None  # only they set a cap
            raise self.limits.too_many_searches(
                client, max(self.admission.typical.values(), default=1.0)
            ) from None
        try:
            await self.charge(request, cost)
        except BaseException:
            self.admission.finish(control)
            raise
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
        if outcome is _Stop.DISPLACED:
            assert self.limits is not None and client is not None  # only clients differ
            raise self.limits.too_many_searches(client, 1.0, displaced=True)
        if outcome is _Stop.NEVER_STARTED:
            raise ProblemError(
                "service-unavailable",
                "the server is shutting down and this search never started; "
                "retry on another replica",
                headers={"retry-after": "1"},
            )
        return outcome

    async def charge(self, request: Request, cost: int) -> None:
        """Take ``cost`` units from the client's bucket (``limits.py``), or raise its 429."""
        state = request.scope.setdefault("state", {})
        client: Client | None = state.get("client")
        if self.limits is not None and client is not None:
            await self.limits.charge(client, cost, state)

    async def _in_pool(
        self, control: SearchControl, work: Callable[[SearchControl], T]
    ) -> T | _Stop:
        await self.admission.turn(control)
        if control in self.admission.displaced:
            return _Stop.DISPLACED
        if control.cancelled:
            return _Stop.CLIENT_LEFT
        if self.admission.drain_at is not None and time.monotonic() >= _deadline(control):
            return _Stop.NEVER_STARTED
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
        deadline = self.deadline_for(time_limit_ms)
        return await self._off_loop(
            request,
            deadline,
            search_cost(board.shape.cells, deadline - time.monotonic()),
            str(max(board.shape.rows, board.shape.cols)),
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
            cost = sum(
                search_cost(q.board.shape.cells, min(self.batch_deadline, _seconds(q)))
                for q, a in zip(questions, analyses, strict=True)
                if a is None
            )
            analyses = await self._off_loop(
                request,
                deadline,
                cost,
                "batch",
                lambda control: self._search_all(questions, analyses, control),
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


def _seconds(question: MoveQuestion) -> float:
    limit = question.time_limit_ms
    return math.inf if limit is None else limit / 1000


async def _watch_disconnect(request: Request, control: SearchControl) -> None:
    """Wait for the client to go away (the body has been read by now)."""
    while True:
        message = await request.receive()
        if message["type"] == "http.disconnect":
            control.cancel()
            return
