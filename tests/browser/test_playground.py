"""The playground page in a real Chromium, against the real server.

The page is the reference client: every test drives it as a user would (clicks,
keys, form fields) and checks what it shows against the API's own answers.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, Route, expect

from service.engine import Board

pytestmark = pytest.mark.browser

Json = dict[str, Any]
FINISHED = ("You win", "The engine wins", "Draw")


# -- driving the page ---------------------------------------------------------


def settle(page: Page) -> None:
    """Wait until the page has every answer it asked for."""
    page.wait_for_selector('#board[aria-busy="false"]')


def start(
    page: Page,
    *,
    rows: int = 3,
    cols: int = 3,
    human: str = "X",
    first: str = "you",
    difficulty: str = "perfect",
    hints: bool = False,
    k: int | None = None,
) -> None:
    page.select_option("#setup [name=rows]", str(rows))
    page.select_option("#setup [name=cols]", str(cols))
    if k is not None:
        page.select_option("#setup [name=k]", str(k))
    page.select_option("#setup [name=human]", human)
    page.select_option("#setup [name=first]", first)
    page.select_option("#setup [name=difficulty]", difficulty)
    page.set_checked("#hints", hints)
    page.click("#setup button[type=submit]")
    settle(page)


def cell(page: Page, index: int) -> Any:
    return page.locator(f'#board button[data-index="{index}"]')


def status(page: Page) -> str:
    return page.locator("#status").inner_text()


def position(page: Page) -> str:
    return page.locator("#position").inner_text()


def play_out(page: Page, choose: Callable[[str], int]) -> str:
    """Play ``choose(board)`` on each of your turns until the game ends; return the
    status, checked against the final position: the game is over, and the status
    names its winner (the engine's plain-Python board decides)."""
    for _ in range(49):
        if status(page).startswith(FINISHED):
            break
        assert status(page).startswith("Your turn"), status(page)
        cell(page, choose(position(page))).click()
        settle(page)
    final = status(page)
    k = int(page.locator("#setup [name=k]").input_value())
    board = Board.parse(position(page), k=k)
    assert board.is_game_over(), (final, position(page))
    if board.winner is None:
        assert final.startswith("Draw"), final
    elif board.winner.value == page.locator("#setup [name=human]").input_value():
        assert final.startswith("You win"), final
    else:
        assert final.startswith(f"The engine wins ({board.winner.value})"), final
    return final


def first_empty(board: str) -> int:
    return board.replace("/", "").index(".")


# -- asking the API directly --------------------------------------------------


def analyse(base_url: str, **fields: Any) -> Json:
    answer = httpx.post(f"{base_url}/v1/analysis", json=fields, timeout=30)
    assert answer.status_code == 200, answer.text
    result: Json = answer.json()
    return result


def hint_label(move: Json, big: bool = False) -> str:
    """What the page writes on a cell, from the cell's entry in ``moves`` (on a
    big board an estimate is written in hundredths, rounded as JavaScript's
    Math.round does: halves up, where Python's round() would go to even)."""
    if move["outcome"] is None and big:
        hundredths = math.floor(abs(move["score"]) * 100 + 0.5)
        return f"{'+' if move['score'] >= 0 else '-'}{hundredths}"
    if move["outcome"] is None:
        return f"~{move['score']:+.2f}"
    distance = "" if move["plies"] is None else str(move["plies"])
    return {"win": f"W{distance}", "draw": "D", "loss": f"L{distance}"}[move["outcome"]]


def shown_hints(page: Page) -> dict[int, str]:
    hinted = page.locator("#board button.hinted")
    return {
        int(hinted.nth(i).get_attribute("data-index") or -1): hinted.nth(i).inner_text().strip()
        for i in range(hinted.count())
    }


# -- the tests ----------------------------------------------------------------


@pytest.mark.parametrize(("first", "player"), [("you", None), ("engine", "O")])
def test_perfect_play_against_the_perfect_engine_is_a_draw(
    page: Page, base_url: str, first: str, player: str | None
) -> None:
    """You play X; when the engine starts it plays O first (the API's `player`)."""
    start(page, first=first)

    def best(board: str) -> int:
        equal = board.count("X") == board.count("O")
        fields = {"player": player} if player and equal else {}
        moves: list[Json] = analyse(base_url, board=board, k=3, **fields)["moves"]
        return int(moves[0]["index"])

    assert play_out(page, best).startswith("Draw")
    assert page.locator("#board button.winning").count() == 0


def test_the_perfect_engine_punishes_careless_play(
    page: Page, base_url: str, artifacts: Path
) -> None:
    start(page, hints=True)
    assert play_out(page, first_empty) == "The engine wins (O)."
    winning = page.locator("#board button.winning")
    expect(winning).to_have_count(3)
    for i in range(3):
        expect(winning.nth(i)).to_have_attribute(
            "aria-label", re.compile(r", O(, last move)?, winning line$")
        )
    expect(page.locator("#legend")).to_be_visible()
    page.screenshot(path=artifacts / "playground.png", full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=artifacts / "playground-phone.png", full_page=True)


def test_a_game_against_easy_finishes(page: Page) -> None:
    start(page, difficulty="easy", hints=True)
    assert play_out(page, first_empty).startswith(FINISHED)


def test_hints_show_the_analysis_of_every_empty_cell(page: Page, base_url: str) -> None:
    start(page, hints=True)
    cell(page, 0).click()
    settle(page)
    board = position(page)
    expected = {move["index"]: hint_label(move) for move in analyse(base_url, board=board)["moves"]}
    assert shown_hints(page) == expected
    assert len(expected) == board.count(".")
    label = cell(page, next(iter(expected))).get_attribute("aria-label") or ""
    assert re.match(r"^[a-c][1-3]: row [1-3], column [1-3], empty, ", label), label

    page.uncheck("#hints")
    expect(page.locator("#board button.hinted")).to_have_count(0)
    expect(page.locator("#legend")).to_be_hidden()


def test_estimates_are_marked_as_such(page: Page) -> None:
    """7x7 with k=4 after a move each is beyond the budget for some moves (the
    empty board is in the book): their values are estimates, marked as such."""
    start(page, rows=7, cols=7, k=4)
    cell(page, 24).click()
    settle(page)
    assert position(page).count("O") == 1  # the engine answered
    with page.expect_response("**/v1/analysis") as response:
        page.check("#hints")
    settle(page)
    moves: list[Json] = response.value.json()["moves"]
    assert shown_hints(page) == {move["index"]: hint_label(move) for move in moves}
    estimates = [move["index"] for move in moves if move["outcome"] is None]
    assert estimates
    for index in estimates:
        expect(cell(page, index)).to_have_class("hinted estimate")
        expect(cell(page, index)).to_have_text(re.compile(r"^~[+-]\d\.\d\d$"))


def test_the_keyboard_moves_the_focus_and_plays(page: Page) -> None:
    cell(page, 0).focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowDown")
    focused = page.evaluate("document.activeElement.dataset.index")
    assert focused == "4"
    expect(cell(page, 4)).to_have_attribute("aria-label", "b2: row 2, column 2, empty")
    page.keyboard.press("Enter")
    settle(page)
    expect(cell(page, 4)).to_have_attribute("aria-label", "b2: row 2, column 2, X")
    assert position(page).count("O") == 1  # the engine answered

    page.keyboard.press("Enter")  # an occupied cell: nothing happens
    settle(page)
    assert position(page).count("X") == 1
    page.keyboard.press("ArrowUp")
    page.keyboard.press("ArrowRight")
    page.keyboard.press(" ")
    settle(page)
    assert position(page).replace("/", "")[2] == "X"


def test_a_board_the_server_refuses_is_explained(page: Page, base_url: str) -> None:
    refused = httpx.post(f"{base_url}/v1/analysis", json={"board": "XXX/OOO/..."}, timeout=10)
    assert refused.headers["content-type"] == "application/problem+json"
    problem = refused.json()
    page.fill("#load-board", "XXX/OOO/...")
    page.click("#load button[type=submit]")
    settle(page)
    error = page.locator("#error")
    expect(error).to_be_visible()
    expect(error).to_contain_text(problem["title"])
    expect(error).to_contain_text(problem["detail"])
    expect(page.locator("#api-response")).to_contain_text("422")


def test_a_refused_move_is_shown_and_taken_back(page: Page) -> None:
    """The real server refuses a request the page sent (rewritten in flight)."""

    def corrupt(route: Route) -> None:
        route.continue_(post_data='{"board": "XO"}')

    page.route("**/v1/move", corrupt)
    cell(page, 4).click()
    settle(page)
    error = page.locator("#error")
    expect(error).to_be_visible()
    expect(error).to_contain_text("The board text is not a board")
    expect(error).to_contain_text("/board")  # the field the problem points at
    expect(cell(page, 4)).to_have_attribute("aria-label", "b2: row 2, column 2, empty")

    page.unroute("**/v1/move")
    cell(page, 4).click()
    settle(page)
    expect(error).to_be_hidden()
    assert position(page).count("O") == 1


def test_an_unreachable_server_is_reported(page: Page) -> None:
    page.route("**/v1/move", lambda route: route.abort())
    cell(page, 0).click()
    settle(page)
    expect(page.locator("#error")).to_contain_text("The server could not be reached")
    expect(cell(page, 0)).to_have_attribute("aria-label", "a3: row 1, column 1, empty")
    expect(page.locator("#api-response")).to_contain_text("No answer")


@pytest.mark.parametrize(("rows", "cols", "k"), [(4, 4, "4"), (3, 5, "3")])
def test_larger_and_rectangular_boards(page: Page, rows: int, cols: int, k: str) -> None:
    start(page, rows=rows, cols=cols)
    expect(page.locator("#setup [name=k]")).to_have_value(k)
    expect(page.locator("#board button")).to_have_count(rows * cols)
    cell(page, 0).click()
    settle(page)
    assert position(page).count("/") == rows - 1
    assert position(page).count("O") == 1
    assert play_out(page, first_empty).startswith(FINISHED)


def test_undo_takes_back_your_move_and_the_reply(page: Page) -> None:
    cell(page, 0).click()
    settle(page)
    cell(page, first_empty(position(page))).click()
    settle(page)
    assert position(page).count("X") == 2
    page.click("#undo")
    settle(page)
    assert position(page).count("X") == 1
    assert position(page).count("O") == 1
    page.click("#undo")
    settle(page)
    assert position(page) == ".../.../..."
    expect(page.locator("#undo")).to_be_disabled()


# -- big boards -------------------------------------------------------------------


def preset(page: Page, value: str, *, human: str = "X", hints: bool = False) -> None:
    page.select_option("#setup [name=preset]", value)
    page.select_option("#setup [name=human]", human)
    page.select_option("#setup [name=first]", "you")
    page.set_checked("#hints", hints)
    page.click("#setup button[type=submit]")
    settle(page)


def test_a_gomoku_board_has_coordinates_and_marks_the_last_move(page: Page) -> None:
    preset(page, "15,15,5,freestyle")
    expect(page.locator("#setup [name=rows]")).to_have_value("15")
    expect(page.locator("#setup [name=rule]")).to_have_value("freestyle")
    expect(page.locator("#board button")).to_have_count(225)
    assert page.locator("#col-labels span").all_inner_texts() == list("abcdefghijklmno")
    assert page.locator("#row-labels span").all_inner_texts() == [str(n) for n in range(15, 0, -1)]
    with page.expect_response("**/v1/move") as response:
        cell(page, 112).click()  # h8, the centre
    settle(page)
    reply = response.value.json()["move"]
    expect(cell(page, 112)).to_have_attribute("aria-label", "h8: row 8, column 8, X")
    last = page.locator("#board button.last")
    expect(last).to_have_count(1)
    expect(last).to_have_attribute("data-index", str(reply["index"]))
    spoken = re.compile(rf"^{reply['name']}: .*, O, last move$")
    expect(last).to_have_attribute("aria-label", spoken)
    expect(page.locator("#note")).to_contain_text(f"The engine played {reply['name']}")


def test_the_rule_selector_sends_the_rule(page: Page) -> None:
    preset(page, "15,15,5,exact")
    with page.expect_request("**/v1/move") as request:
        cell(page, 112).click()
    settle(page)
    body = request.value.post_data_json
    assert body["rule"] == "exact" and body["k"] == 5
    page.select_option("#setup [name=rule]", "freestyle")
    expect(page.locator("#setup [name=preset]")).to_have_value("15,15,5,freestyle")


def test_a_game_loaded_as_moves_shows_its_winning_line(page: Page) -> None:
    page.select_option("#setup [name=preset]", "15,15,5,exact")
    page.fill("#load-board", "h8 a1 i8 a3 j8 a5 k8 b1 l8")
    page.click("#load button[type=submit]")
    settle(page)
    expect(page.locator("#status")).to_have_text("The engine wins (X).")
    winning = page.locator("#board button.winning")
    expect(winning).to_have_count(5)
    assert [winning.nth(i).get_attribute("data-index") for i in range(5)] == [
        str(i) for i in range(112, 117)
    ]
    expect(page.locator("#board button.last")).to_have_attribute("data-index", "116")


def test_hints_stay_legible_on_a_20x20_board(page: Page, artifacts: Path) -> None:
    """The page's own analysis (big boards' estimates change as searches share
    the table, so a second request might differ) is what the cells show."""
    preset(page, "20,20,5,freestyle", hints=True)
    with page.expect_response("**/v1/analysis") as response:
        cell(page, 189).click()  # j11, near the centre
    settle(page)
    board = position(page)
    answer = response.value.json()
    shown = shown_hints(page)
    assert shown == {move["index"]: hint_label(move, big=True) for move in answer["moves"]}
    assert 0 < len(shown) < board.count(".")
    for index in shown:
        fits = cell(page, index).evaluate(
            """button => {
                const text = button.firstChild;
                const size = parseFloat(getComputedStyle(text).fontSize);
                return [size, text.scrollWidth <= button.clientWidth];
            }"""
        )
        assert fits[0] >= 8.5 and fits[1], (index, fits)
    expect(page.locator("#omitted")).to_contain_text(f"{answer['omitted']['count']} others")
    page.screenshot(path=artifacts / "playground-20x20.png", full_page=True)


# -- renju --------------------------------------------------------------------------

RENJU = "15,15,5,renju"
# X to move, and h8 (cell 112) would make two open threes (g8-i8 and h7-h9):
# forbidden to X as a double three.
DOUBLE_THREE = ["g8", "a1", "i8", "a3", "h7", "a5", "h9", "a7"]
H8 = 112


def load_renju(page: Page, moves: list[str]) -> None:
    page.select_option("#setup [name=preset]", RENJU)
    page.fill("#load-board", " ".join(moves))
    page.click("#load button[type=submit]")
    settle(page)


def marked_forbidden(page: Page) -> dict[int, str]:
    """The cells the page marks as forbidden to X, with their titles."""
    return {
        int(button.get_attribute("data-index") or -1): button.get_attribute("title") or ""
        for button in page.locator("#board button.forbidden").all()
    }


def forbidden_titles(answer: Json) -> dict[int, str]:
    """What the page should mark, from an analysis answer's `forbidden`."""
    return {
        cell["index"]: f"forbidden to X: {cell['kind'].replace('-', ' ')}"
        for cell in answer["forbidden"]
    }


def test_the_renju_preset_chooses_the_rule_and_explains_it(page: Page) -> None:
    note = page.locator("#rule-note")
    expect(note).to_be_hidden()
    page.select_option("#setup [name=preset]", RENJU)
    for field, value in {"rows": "15", "cols": "15", "k": "5", "rule": "renju"}.items():
        expect(page.locator(f"#setup [name={field}]")).to_have_value(value)
    expect(note).to_be_visible()
    expect(note).to_contain_text(
        "may not play an overline (six or more), a double four or a double three"
    )
    # X is to move: the page asks the server which cells X may not play.
    with page.expect_request("**/v1/analysis") as request:
        page.click("#setup button[type=submit]")
    settle(page)
    assert request.value.post_data_json["rule"] == "renju"
    expect(page.locator("#board")).to_have_attribute(
        "aria-label",
        "Board, 15 by 15, renju: X needs exactly 5 in a row and may not play the cells "
        "marked forbidden, O 5 or more",
    )
    assert marked_forbidden(page) == {}  # none on the empty board
    page.select_option("#setup [name=rule]", "freestyle")
    expect(page.locator("#setup [name=preset]")).to_have_value("15,15,5,freestyle")
    expect(note).to_be_hidden()


def test_renju_marks_the_cells_forbidden_to_x(page: Page, base_url: str) -> None:
    """From the loaded game's analysis, then from the analysis the page asks for
    on each of X's turns (after the engine's reply, after an undo)."""
    load_renju(page, DOUBLE_THREE)
    expected = forbidden_titles(
        analyse(base_url, moves=DOUBLE_THREE, rule="renju", time_limit_ms=1)
    )
    assert expected == {H8: "forbidden to X: double three"}
    assert marked_forbidden(page) == expected
    h8 = cell(page, H8)
    expect(h8).to_have_text("\N{MULTIPLICATION SIGN}")
    expect(h8).to_have_attribute(
        "aria-label", "h8: row 8, column 8, empty, forbidden to X: double three"
    )
    expect(h8).to_have_attribute("aria-disabled", "true")

    with page.expect_response("**/v1/analysis") as response:
        cell(page, 14).click()  # o15, far from everything; the engine answers
    settle(page)
    assert position(page).count("O") == 5
    assert marked_forbidden(page) == forbidden_titles(response.value.json())

    with page.expect_request("**/v1/analysis"):
        page.click("#undo")
    settle(page)
    assert marked_forbidden(page) == expected


def test_a_click_on_a_forbidden_cell_is_refused_with_the_reason(page: Page) -> None:
    load_renju(page, DOUBLE_THREE)
    before = position(page)
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url))
    # A real click: force, since Playwright clicks no aria-disabled element, and a
    # forbidden cell is aria-disabled like an occupied one.
    cell(page, H8).click(force=True)
    settle(page)
    expect(page.locator("#status")).to_have_text(
        "h8 is forbidden to X: double three. Your turn: you play X."
    )
    expect(cell(page, H8)).to_have_attribute(
        "aria-label", "h8: row 8, column 8, empty, forbidden to X: double three"
    )
    assert position(page) == before
    assert asked == []  # nothing was sent: the server would have taken the board as given
