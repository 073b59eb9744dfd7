"""The Python client against the committed OpenAPI document: every schema has its
mirror, every property its field of the matching type, every request field its
keyword. When the API gains a field the client lacks, a test here names it."""

from __future__ import annotations

import collections.abc
import dataclasses
import inspect
import json
import types
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.api.test_examples import DOCUMENTS, _examples
from tictactoe_client import (
    AnalysisAnswer,
    AnalysisRequest,
    AsyncClient,
    Cell,
    Client,
    Difficulty,
    ForbiddenCell,
    Health,
    MoveAnswer,
    MoveRequest,
    MoveValue,
    OmittedMoves,
    Problem,
)
from tictactoe_client.models import from_json

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS: dict[str, Any] = json.loads((ROOT / "openapi" / "openapi.json").read_text())["components"][
    "schemas"
]
# Each schema and what mirrors it in the client. The batch envelopes have none:
# the client takes and returns plain lists.
MIRRORS: dict[str, Any] = {
    "AnalysisAnswer": AnalysisAnswer,
    "AnalysisRequest": AnalysisRequest,
    "BatchAnswer": None,
    "BatchRequest": None,
    "Cell": Cell,
    "Difficulty": Difficulty,
    "Health": Health,
    "MoveAnswer": MoveAnswer,
    "MoveRequest": MoveRequest,
    "MoveValue": MoveValue,
    "ForbiddenCell": ForbiddenCell,
    "OmittedMoves": OmittedMoves,
    "ProblemDetail": Problem,
}
REQUESTS = {"MoveRequest", "AnalysisRequest"}
# Fields the client adds to a problem beyond the schema's, which allows extensions.
PROBLEM_EXTRAS = {"errors", "raw"}
DATACLASSES = sorted(name for name, mirror in MIRRORS.items() if dataclasses.is_dataclass(mirror))


def test_every_schema_has_a_mirror() -> None:
    assert set(SCHEMAS) == set(MIRRORS)


@pytest.mark.parametrize("name", DATACLASSES)
def test_each_dataclass_has_exactly_its_schemas_properties(name: str) -> None:
    fields = {field.name for field in dataclasses.fields(MIRRORS[name])}
    properties = set(SCHEMAS[name]["properties"])
    extras = PROBLEM_EXTRAS if name == "ProblemDetail" else set()
    assert properties - fields == set(), f"{name}: the API has fields the client lacks"
    assert fields - properties == extras, f"{name}: the client has fields the API lacks"


@pytest.mark.parametrize("name", DATACLASSES)
def test_each_field_has_its_propertys_type(name: str) -> None:
    schema = SCHEMAS[name]
    hints = typing.get_type_hints(MIRRORS[name])
    for prop, prop_schema in schema["properties"].items():
        assert prop in hints, f"{name}.{prop}: the client lacks it"
        expected = describe_schema(prop_schema)
        if name in REQUESTS and prop not in schema.get("required", ()):
            expected = nullable(expected)  # None leaves the field to the server
        assert describe_hint(hints[prop]) == expected, f"{name}.{prop}"


def test_difficulty_names_the_api_levels() -> None:
    assert describe_hint(Difficulty) == describe_schema(SCHEMAS["Difficulty"])


@pytest.mark.parametrize(
    ("call", "request_class"),
    [
        (Client.move, MoveRequest),
        (Client.analysis, AnalysisRequest),
        (AsyncClient.move, MoveRequest),
        (AsyncClient.analysis, AnalysisRequest),
    ],
    ids=["move", "analysis", "async-move", "async-analysis"],
)
def test_calls_take_every_request_field_in_order(
    call: Callable[..., Any], request_class: type
) -> None:
    parameters = list(inspect.signature(call).parameters.values())[1:]  # after self
    fields = dataclasses.fields(request_class)
    assert [p.name for p in parameters] == [f.name for f in fields]
    assert parameters[0].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
    assert {p.kind for p in parameters[1:]} == {inspect.Parameter.KEYWORD_ONLY}
    call_hints = typing.get_type_hints(call)
    field_hints = typing.get_type_hints(request_class)
    # (A call may take any sequence where its request keeps a tuple.)
    assert {p.name: describe_hint(call_hints[p.name]) for p in parameters} == {
        name: describe_hint(hint) for name, hint in field_hints.items()
    }


def _documented_answers(path: str) -> list[dict[str, Any]]:
    return [
        json.loads(answer)
        for document in DOCUMENTS
        for command, answer in _examples(document)
        if path in command and '"type"' not in answer
    ]


@pytest.mark.parametrize(
    ("path", "answer_class"),
    [("/v1/move", MoveAnswer), ("/v1/analysis", AnalysisAnswer)],
)
def test_the_documented_answers_read_back_whole(path: str, answer_class: type) -> None:
    answers = _documented_answers(path)
    assert len(answers) >= 2
    for answer in answers:
        parsed = from_json(answer_class, answer)
        assert json.loads(json.dumps(dataclasses.asdict(parsed))) == answer


def test_a_newer_servers_extra_fields_are_ignored() -> None:
    answer = _documented_answers("/v1/move")[0]
    newer = {
        **answer,
        "proof": {"nodes": 12},
        "hint": "a field a newer server might add",
        "move": {**answer["move"], "label": "b1"},
    }
    assert from_json(MoveAnswer, newer) == from_json(MoveAnswer, answer)


def test_a_missing_field_is_named() -> None:
    answer = _documented_answers("/v1/move")[0]
    del answer["board_after"]
    with pytest.raises(ValueError, match="MoveAnswer: the answer has no 'board_after'"):
        from_json(MoveAnswer, answer)


def test_answers_are_frozen_and_hashable() -> None:
    answer = from_json(MoveAnswer, _documented_answers("/v1/move")[0])
    with pytest.raises(dataclasses.FrozenInstanceError):
        answer.score = 1.0  # type: ignore[misc]
    assert hash(answer) == hash(from_json(MoveAnswer, _documented_answers("/v1/move")[0]))
    assert isinstance(answer.score, float) and isinstance(answer.best_moves, tuple)


# A type as one line of text, so that schema and annotation compare directly.
SCALARS = {"string": "str", "integer": "int", "number": "float", "boolean": "bool"}


def describe_schema(schema: dict[str, Any]) -> str:
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[1]
        target = SCHEMAS[name]
        return describe_schema(target) if "enum" in target else name
    if "anyOf" in schema:
        arms = [arm for arm in schema["anyOf"] if arm.get("type") != "null"]
        described = " | ".join(sorted(describe_schema(arm) for arm in arms))
        return nullable(described) if len(arms) < len(schema["anyOf"]) else described
    if "enum" in schema:
        return "one of " + ", ".join(sorted(schema["enum"]))
    if schema.get("type") == "array":
        return f"tuple[{describe_schema(schema['items'])}, ...]"
    return SCALARS[schema["type"]]


def describe_hint(hint: Any) -> str:
    origin = typing.get_origin(hint)
    arguments = typing.get_args(hint)
    if origin is types.UnionType or origin is typing.Union:
        arms = [arm for arm in arguments if arm is not type(None)]
        described = " | ".join(sorted(describe_hint(arm) for arm in arms))
        return nullable(described) if len(arms) < len(arguments) else described
    if origin is typing.Literal:
        return "one of " + ", ".join(sorted(arguments))
    if origin is tuple:
        assert arguments[1] is Ellipsis, hint
        return f"tuple[{describe_hint(arguments[0])}, ...]"
    if origin is collections.abc.Sequence:
        return f"tuple[{describe_hint(arguments[0])}, ...]"
    if dataclasses.is_dataclass(hint):
        return next(name for name, mirror in MIRRORS.items() if mirror is hint)
    return str(hint.__name__)


def nullable(described: str) -> str:
    return described if described.endswith(" | None") else described + " | None"
