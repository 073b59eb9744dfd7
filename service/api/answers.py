"""Translation between the API's fields and the engine: boards in, answers out.

The one place where request fields become a :class:`Board` and where engine
results become JSON-ready dicts. It decides nothing about the game.
"""

from __future__ import annotations

from typing import Any

from service.api.models import BoardQuery, BoardQuestion, MoveFields
from service.engine import Analysis, Board, Outcome, Status, Suggestion, move_outcome, outcome
from service.engine.geometry import Geometry
from service.engine.score import plies_to_end

# Floats from the heuristic are rounded for the wire; proven scores are ints.
SCORE_DIGITS = 4


def parse_board(question: BoardQuestion | BoardQuery) -> Board:
    """The position a request names, by its board text or its moves."""
    moves = question.move_list() if isinstance(question, BoardQuery) else question.moves
    if moves is not None:
        return Board.from_moves(
            moves,
            rows=question.rows,
            cols=question.cols,
            k=question.k,
            player=question.player,
            rule=question.rule,
        )
    assert question.board is not None  # the models require one of the two
    return Board.parse(
        question.board,
        rows=question.rows,
        cols=question.cols,
        k=question.k,
        player=question.player,
        rule=question.rule,
    )


def cell(shape: Geometry, index: int) -> dict[str, int | str]:
    row, col = divmod(index, shape.cols)
    return {"index": index, "row": row, "col": col, "name": shape.coordinate(index)}


def wire_score(score: int | float) -> int | float:
    return score if isinstance(score, int) else round(score, SCORE_DIGITS)


def stopped_by(analysis: Analysis) -> str | None:
    return None if analysis.stopped_by is None else analysis.stopped_by.value


def move_answer(request: MoveFields, suggestion: Suggestion) -> dict[str, Any]:
    analysis = suggestion.analysis
    board = analysis.board
    shape = board.shape
    chosen = suggestion.move
    after = board.play(chosen.cell)
    outcome = move_outcome(chosen)
    status_after = after.status
    winner_after = after.winner
    return {
        "move": cell(shape, chosen.cell),
        "player": board.side_to_move.value,
        "score": wire_score(chosen.score),
        "outcome": None if outcome is None else outcome.value,
        "plies": analysis.move_plies(chosen),
        "line": [cell(shape, i) for i in chosen.line],
        "best_moves": [cell(shape, i) for i in analysis.best_moves],
        "best_score": wire_score(analysis.best_score),
        "is_best": suggestion.is_best,
        "exact": analysis.exact,
        "depth": analysis.depth,
        "stopped_by": stopped_by(analysis),
        "board": board.format(),
        "board_after": after.format(),
        "status_after": status_after.value,
        "winner_after": None if winner_after is None else winner_after.value,
        "winning_lines_after": [list(line) for line in after.winning_lines],
        "rows": shape.rows,
        "cols": shape.cols,
        "k": shape.k,
        "rule": shape.rule.value,
        "difficulty": request.difficulty.value,
        "seed": request.seed,
    }


def analysis_answer(analysis: Analysis) -> dict[str, Any]:
    board = analysis.board
    shape = board.shape
    best = analysis.moves[0]
    outcome = analysis.outcome
    return {
        **_position(board),
        "score": wire_score(best.score),
        "outcome": None if outcome is None else outcome.value,
        "plies": analysis.plies,
        "exact": analysis.exact,
        "depth": analysis.depth,
        "stopped_by": stopped_by(analysis),
        "moves": [
            {
                **cell(shape, move.cell),
                "score": wire_score(move.score),
                "outcome": None if (o := move_outcome(move)) is None else o.value,
                "plies": analysis.move_plies(move),
                "line": [cell(shape, i) for i in move.line],
                "exact": move.exact,
            }
            for move in analysis.moves
        ],
        "omitted": _omitted(analysis),
        "forbidden": forbidden(board),
    }


def forbidden(board: Board) -> list[dict[str, Any]]:
    """X's forbidden cells under renju, with why (empty otherwise)."""
    shape = board.shape
    return [{**cell(shape, index), "kind": kind} for index, kind in board.forbidden().items()]


def _omitted(analysis: Analysis) -> dict[str, Any]:
    omitted = analysis.omitted
    if omitted.score is None:
        return {"count": omitted.count, "score": None, "outcome": None, "plies": None}
    board = analysis.board
    cells = board.shape.cells
    result: Outcome = outcome(omitted.score)
    plies = plies_to_end(omitted.score, cells=cells, empties=cells - board.mark_count)
    return {"count": omitted.count, "score": omitted.score, "outcome": result.value, "plies": plies}


def finished_answer(board: Board) -> dict[str, Any]:
    """A finished game: the side to move has lost (0 plies away) or it is drawn."""
    status = board.status
    cells = board.shape.cells
    lost = status is Status.WON
    return {
        **_position(board),
        "score": -(cells + 1) if lost else 0,
        "outcome": "loss" if lost else "draw",
        "plies": 0,
        "exact": True,
        "depth": 0,
        "stopped_by": None,
        "moves": [],
        "omitted": {"count": 0, "score": None, "outcome": None, "plies": None},
        "forbidden": [],
    }


def _position(board: Board) -> dict[str, Any]:
    winner = board.winner
    return {
        "board": board.format(),
        "rows": board.rows,
        "cols": board.cols,
        "k": board.k,
        "rule": board.rule.value,
        "status": board.status.value,
        "winner": None if winner is None else winner.value,
        "winning_lines": [list(line) for line in board.winning_lines],
        "player": board.side_to_move.value,
    }
