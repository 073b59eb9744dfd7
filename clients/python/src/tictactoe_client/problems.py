"""RFC 9457 problems as the client sees them: a value in a batch, an error elsewhere.

Every error answer becomes a :class:`Problem`. A call that fails raises
:class:`ProblemError`; a batch lists the problems of single requests among its
answers, since one bad board does not fail the batch.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import httpx

from tictactoe_client.models import from_json

PROBLEM_MEDIA_TYPE = "application/problem+json"


@dataclasses.dataclass(frozen=True)
class FieldError:
    """One field at fault: a JSON pointer into the body, or a query parameter."""

    detail: str
    pointer: str | None = None
    parameter: str | None = None


@dataclasses.dataclass(frozen=True)
class Problem:
    """A problem answer. ``raw`` holds all of it, extensions such as ``winner`` too."""

    type: str
    title: str
    status: int
    detail: str
    instance: str | None = None
    errors: tuple[FieldError, ...] = ()
    raw: Mapping[str, Any] = dataclasses.field(
        default_factory=dict, compare=False, hash=False, repr=False
    )

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Problem:
        return dataclasses.replace(from_json(cls, data), raw=dict(data))


class ProblemError(Exception):
    """The server answered a call with a problem (after any retries).

    ``retry_after`` is the seconds the answer's ``Retry-After`` header asked
    for (a ``429`` or a ``503``; not capped as retries cap it), or ``None``; a ``429``'s
    ``raw["reason"]`` says which quota was met, ``rate`` or ``concurrency``.
    """

    def __init__(self, problem: Problem, retry_after: float | None = None) -> None:
        super().__init__(f"{problem.status} {problem.title}: {problem.detail}")
        self.problem = problem
        self.retry_after = retry_after

    @property
    def type(self) -> str:
        return self.problem.type

    @property
    def title(self) -> str:
        return self.problem.title

    @property
    def status(self) -> int:
        return self.problem.status

    @property
    def detail(self) -> str:
        return self.problem.detail

    @property
    def instance(self) -> str | None:
        return self.problem.instance

    @property
    def errors(self) -> tuple[FieldError, ...]:
        return self.problem.errors

    @property
    def raw(self) -> Mapping[str, Any]:
        """The problem as the server sent it."""
        return self.problem.raw


def problem_of(response: httpx.Response) -> Problem:
    """The problem an error response carries.

    An answer that is not problem+json (a proxy's HTML 502, say) becomes an
    ``about:blank`` problem, as RFC 9457 prescribes for a bare status code.
    """
    if _is_json(response):
        try:
            data = response.json()
        except ValueError:
            data = None
        if isinstance(data, Mapping) and {"type", "title", "status", "detail"} <= data.keys():
            try:
                return Problem.from_json(data)
            except ValueError:  # extensions we cannot read: keep the core, and all in raw
                core = {name: data[name] for name in ("type", "title", "status", "detail")}
                return dataclasses.replace(Problem.from_json(core), raw=dict(data))
    text = response.text.strip()
    return Problem(
        type="about:blank",
        title=response.reason_phrase or f"HTTP {response.status_code}",
        status=response.status_code,
        detail=text[:500] or f"the server answered {response.status_code} without a body",
        raw={},
    )


def _is_json(response: httpx.Response) -> bool:
    media_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
    return media_type in (PROBLEM_MEDIA_TYPE, "application/json")
