// The playground: a game against the engine, written as a plain client of the
// public API. The page holds no game rules beyond whose turn it is: the server
// says which boards are legal, what the engine plays, when the game is over and,
// under renju, which cells X may not play.
import { ApiProblem, observeExchanges, post } from "./api.js";

const EMPTY = ".";
const SIZES = Array.from({ length: 18 }, (_, i) => i + 3); // 3 to 20
const LETTERS = "abcdefghijklmnopqrst";
/** Boards of this side and more look like gomoku boards: stones, short hints. */
const BIG = 8;

const setup = document.querySelector("#setup");
const boardView = document.querySelector("#board");
const statusLine = document.querySelector("#status");
const note = document.querySelector("#note");
const errorBox = document.querySelector("#error");
const hintsToggle = document.querySelector("#hints");
const undoButton = document.querySelector("#undo");
const legend = document.querySelector("#legend");
const position = document.querySelector("#position");
const loadForm = document.querySelector("#load");
const colLabels = document.querySelector("#col-labels");
const rowLabels = document.querySelector("#row-labels");
const ruleNote = document.querySelector("#rule-note");
const omittedNote = document.querySelector("#omitted");

let game; // see newGame()
let version = 0; // bumped on every change of position, so late answers are dropped
let pending = 0; // user actions still waiting for the server
let focused = 0; // the cell that takes the keyboard focus (roving tabindex)

// -- the board as the API writes it ------------------------------------------

const other = (mark) => (mark === "X" ? "O" : "X");
const count = (cells, mark) => cells.filter((cell) => cell === mark).length;
const readBoard = (text) => [...text.replaceAll("/", "")];

function boardText(cells, cols) {
  const rows = [];
  for (let start = 0; start < cells.length; start += cols) {
    rows.push(cells.slice(start, start + cols).join(""));
  }
  return rows.join("/");
}

function sideToMove() {
  const x = count(game.cells, "X");
  const o = count(game.cells, "O");
  if (x === o) return game.first;
  return x > o ? "O" : "X";
}

/** The fields every request carries: the board, k, the rule, and who is to move if
 *  the counts can't say. */
function boardFields() {
  const fields = { board: boardText(game.cells, game.cols), k: game.k, rule: game.rule };
  if (count(game.cells, "X") === count(game.cells, "O") && game.first === "O") fields.player = "O";
  return fields;
}

const isHumansTurn = () => game.status === "in_progress" && sideToMove() === game.human;
/** Under renju X may not play some cells, and only an analysis lists them. */
const needsForbidden = () => game.rule === "renju" && sideToMove() === "X";
const isBig = () => Math.max(game.rows, game.cols) >= BIG;
/** Gomoku notation: the column's letter from a, the row's number from 1 at the bottom. */
const coordinate = (index) =>
  `${LETTERS[index % game.cols]}${game.rows - Math.floor(index / game.cols)}`;
/** How the page names a cell: its coordinate on big boards, its row and column on small ones. */
const cellName = ({ index, row, col }) =>
  isBig() ? coordinate(index) : `row ${row + 1}, column ${col + 1}`;

// -- talking to the server -----------------------------------------------------

/** POST and return the answer, or null when the position changed meanwhile. */
async function call(path, body) {
  const asked = version;
  try {
    const answer = await post(path, body);
    return asked === version ? answer : null;
  } catch (error) {
    if (asked === version) throw error;
    return null;
  }
}

/** Run one user action; any error it meets is shown, never swallowed. */
async function act(task) {
  pending += 1;
  render();
  try {
    await task();
  } catch (error) {
    showError(error);
  } finally {
    pending -= 1;
    render();
  }
}

async function engineTurn() {
  const body = { ...boardFields(), difficulty: setup.difficulty.value };
  const answer = await call("/v1/move", body);
  if (!answer) return;
  version += 1;
  game.cells = readBoard(answer.board_after);
  game.status = answer.status_after;
  game.winner = answer.winner_after;
  game.lines = answer.winning_lines_after;
  game.lastMove = answer;
  game.last = answer.move.index;
}

/** Map from cell index to why X may not play it ("double-three"), from an analysis. */
const forbiddenCells = (answer) => new Map(answer.forbidden.map((cell) => [cell.index, cell.kind]));

/** Ask for the current position's analysis when the page needs something from it:
 *  the hints, if shown, and under renju on X's turn X's forbidden cells. The page
 *  sends board text, which cannot show the order of the moves, so the server
 *  cannot refuse a forbidden move in /v1/move: the page must keep X off them. */
async function refreshAnalysis() {
  if (!isHumansTurn()) return;
  const wantHints = hintsToggle.checked && !game.hints;
  const wantForbidden = needsForbidden() && !game.forbidden;
  if (!wantHints && !wantForbidden) return;
  // The forbidden cells come from the board, not the search: for them alone the
  // shortest search will do (a full one takes the server's deadline on big boards).
  const body = wantHints ? boardFields() : { ...boardFields(), time_limit_ms: 1 };
  const answer = await call("/v1/analysis", body);
  if (!answer) return;
  game.forbidden = forbiddenCells(answer);
  if (wantHints) {
    game.hints = new Map(answer.moves.map((move) => [move.index, move]));
    game.omitted = answer.omitted;
  }
}

// -- actions -------------------------------------------------------------------

function newGame() {
  const human = setup.human.value;
  const rows = Number(setup.rows.value);
  const cols = Number(setup.cols.value);
  version += 1;
  focused = 0;
  game = {
    rows,
    cols,
    k: Number(setup.k.value),
    rule: setup.rule.value,
    human,
    first: setup.first.value === "you" ? human : other(human),
    cells: Array(rows * cols).fill(EMPTY),
    status: "in_progress",
    winner: null,
    lines: [],
    history: [], // positions before each of your moves, for undo
    hints: null, // Map from cell index to its value, for the current position
    omitted: null, // what the current position's analysis left out (big boards)
    forbidden: null, // Map from cell index to why X may not play it (renju)
    refused: null, // the forbidden cell you last clicked, and why, for the status line
    lastMove: null, // the engine's last answer
    last: null, // the cell of the last stone, either side's
  };
  clearError();
  act(async () => {
    if (!isHumansTurn()) await engineTurn();
    await refreshAnalysis();
  });
}

function play(index) {
  if (pending || !isHumansTurn() || game.cells[index] !== EMPTY) return;
  clearError();
  const forbidden = game.forbidden?.get(index);
  if (forbidden) {
    // The server would take the board as given: the page says no, and why.
    game.refused = { index, kind: forbidden };
    render();
    return;
  }
  game.history.push({ cells: [...game.cells], lastMove: game.lastMove, last: game.last });
  version += 1;
  game.cells[index] = game.human;
  game.hints = null;
  game.forbidden = null;
  game.refused = null;
  game.lastMove = null;
  game.last = index;
  act(async () => {
    try {
      await engineTurn();
    } catch (error) {
      if (error instanceof ApiProblem && error.slug === "game-over") {
        // Your move ended the game: the problem says how.
        game.status = error.problem.winner ? "won" : "drawn";
        game.winner = error.problem.winner;
        game.lines = error.problem.winning_lines ?? [];
        return;
      }
      restore(game.history.pop()); // no answer: take your move back
      throw error;
    }
    await refreshAnalysis();
  });
}

function restore(snapshot) {
  version += 1;
  Object.assign(game, snapshot, {
    status: "in_progress",
    winner: null,
    lines: [],
    hints: null,
    omitted: null,
    forbidden: null,
    refused: null,
  });
}

function undo() {
  if (!game.history.length) return;
  clearError();
  restore(game.history.pop());
  act(refreshAnalysis);
}

/** A game as its moves ("h8 h9 i9", or cell indices), or null for board text. */
function readMoves(text) {
  const parts = text.split(/[\s,]+/).filter(Boolean);
  if (!parts.length || !parts.every((part) => /^([a-t]\d{1,2}|\d+)$/i.test(part))) return null;
  return parts.map((part) => (/^\d+$/.test(part) ? Number(part) : part));
}

function loadPosition(text) {
  clearError();
  act(async () => {
    const moves = readMoves(text);
    const rule = setup.rule.value;
    const request = moves
      ? { moves, rows: Number(setup.rows.value), cols: Number(setup.cols.value), rule }
      : { board: text, rule };
    const answer = await call("/v1/analysis", request);
    if (!answer) return;
    const cells = readBoard(answer.board);
    const [x, o] = [count(cells, "X"), count(cells, "O")];
    version += 1;
    focused = 0;
    game = {
      rows: answer.rows,
      cols: answer.cols,
      k: answer.k,
      rule: answer.rule,
      human: answer.player,
      first: x === o ? answer.player : x > o ? "X" : "O",
      cells,
      status: answer.status,
      winner: answer.winner,
      lines: answer.winning_lines,
      history: [],
      hints: new Map(answer.moves.map((move) => [move.index, move])),
      omitted: answer.omitted,
      forbidden: forbiddenCells(answer),
      refused: null,
      lastMove: null,
      last: moves ? readBoardIndex(answer, moves.at(-1)) : null,
    };
    showSetup();
  });
}

/** The cell index a move of a loaded list names. */
function readBoardIndex(answer, move) {
  if (typeof move === "number") return move;
  const col = LETTERS.indexOf(move[0].toLowerCase());
  return (answer.rows - Number(move.slice(1))) * answer.cols + col;
}

// -- showing it ------------------------------------------------------------------

const signed = (score) => `${score >= 0 ? "+" : ""}${score.toFixed(2)}`;
const plies = (count) => (count === 1 ? "1 ply" : `${count} plies`);
/** "forbidden to X: double three", from the analysis's kind ("double-three"). */
const forbiddenText = (kind) => `forbidden to X: ${kind.replaceAll("-", " ")}`;

/** "W3", "D", "L4" for proven values, "W" or "L" when only the outcome is proven
 *  (the distance is not), "~+0.25" for estimates ("+25", in hundredths, on big
 *  boards, where a cell is small). */
function hintLabel(move) {
  if (!move.outcome && isBig()) {
    return `${move.score >= 0 ? "+" : "-"}${Math.round(Math.abs(move.score) * 100)}`;
  }
  if (!move.outcome) return `~${signed(move.score)}`;
  const distance = move.plies ?? "";
  return { win: `W${distance}`, draw: "D", loss: `L${distance}` }[move.outcome];
}

function hintSpoken(move) {
  if (!move.outcome) return `estimate ${signed(move.score)}, not proven`;
  if (move.outcome === "draw") return "draw";
  if (move.plies === null) return `${move.outcome}, distance not proven`;
  return `${move.outcome} in ${plies(move.plies)}`;
}

/** Blue for wins, orange for losses, grey for draws (told apart by any colour vision);
 *  the deeper the colour, the sooner the end. Estimates stay pale. */
function hintColour(move) {
  if (move.score === 0) return "hsl(0 0% 85%)";
  const strength = move.outcome ? Math.abs(move.score) / game.cells.length : Math.abs(move.score) / 3;
  const hue = move.score > 0 ? "210 80%" : "30 90%";
  return `hsl(${hue} ${Math.round(92 - 32 * strength)}%)`;
}

function renderLabels() {
  const letters = Array.from({ length: game.cols }, (_, col) => LETTERS[col]);
  const numbers = Array.from({ length: game.rows }, (_, row) => String(game.rows - row));
  for (const [view, texts] of [
    [colLabels, letters],
    [rowLabels, numbers],
  ]) {
    if (view.textContent !== texts.join("")) {
      view.replaceChildren(
        ...texts.map((text) => {
          const label = document.createElement("span");
          label.textContent = text;
          return label;
        }),
      );
    }
  }
}

function renderBoard() {
  const cells = game.cells.length;
  if (boardView.children.length !== cells) {
    boardView.replaceChildren(
      ...game.cells.map((_, index) => {
        const button = document.createElement("button");
        button.type = "button";
        button.dataset.index = index;
        button.append(document.createElement("span"));
        return button;
      }),
    );
  }
  const frame = boardView.parentElement;
  for (const view of [frame, boardView]) {
    view.style.setProperty("--rows", game.rows);
    view.style.setProperty("--cols", game.cols);
  }
  frame.classList.toggle("big", isBig());
  renderLabels();
  const rule = {
    freestyle: `${game.k} in a row`,
    exact: `exactly ${game.k} in a row`,
    renju:
      `renju: X needs exactly ${game.k} in a row and may not play the cells marked ` +
      `forbidden, O ${game.k} or more`,
  }[game.rule];
  boardView.setAttribute("aria-label", `Board, ${game.rows} by ${game.cols}, ${rule}`);
  boardView.setAttribute("aria-busy", String(pending > 0));
  const winning = new Set(game.lines.flat());
  const canPlay = isHumansTurn() && !pending;
  [...boardView.children].forEach((button, index) => {
    const mark = game.cells[index];
    const hint = mark === EMPTY && hintsToggle.checked ? game.hints?.get(index) : undefined;
    // Shown on your turn only: a finished game has no forbidden cells.
    const forbidden = mark === EMPTY && isHumansTurn() ? game.forbidden?.get(index) : undefined;
    const row = Math.floor(index / game.cols);
    const name = `${coordinate(index)}: row ${row + 1}, column ${(index % game.cols) + 1}`;
    let label = `${name}, ${mark === EMPTY ? "empty" : mark}`;
    if (hint) label += `, ${hintSpoken(hint)}`;
    if (forbidden) label += `, ${forbiddenText(forbidden)}`;
    if (index === game.last) label += ", last move";
    if (winning.has(index)) label += ", winning line";
    button.setAttribute("aria-label", label);
    button.setAttribute("aria-disabled", String(mark !== EMPTY || !canPlay || Boolean(forbidden)));
    if (forbidden) button.title = forbiddenText(forbidden);
    else button.removeAttribute("title");
    button.tabIndex = index === focused ? 0 : -1;
    button.dataset.mark = mark;
    button.classList.toggle("winning", winning.has(index));
    button.classList.toggle("last", index === game.last);
    button.classList.toggle("hinted", Boolean(hint));
    button.classList.toggle("estimate", Boolean(hint && !hint.outcome));
    button.classList.toggle("forbidden", Boolean(forbidden));
    button.style.setProperty("--hint", hint ? hintColour(hint) : "");
    // An analysis never lists a forbidden cell among its moves, so no cell has both.
    const text = button.firstChild;
    text.className = forbidden ? "forbidden-mark" : hint ? "hint" : "mark";
    if (forbidden) text.textContent = "×";
    else if (hint) text.textContent = hintLabel(hint);
    else text.textContent = mark === EMPTY ? "" : mark;
  });
}

function statusText() {
  const engine = other(game.human);
  if (game.status === "won") {
    return game.winner === game.human
      ? `You win (${game.human})!`
      : `The engine wins (${engine}).`;
  }
  if (game.status === "drawn") return "Draw: the board is full.";
  if (isHumansTurn() && game.refused) {
    const { index, kind } = game.refused;
    return `${coordinate(index)} is ${forbiddenText(kind)}. Your turn: you play ${game.human}.`;
  }
  if (isHumansTurn()) return `Your turn: you play ${game.human}.`;
  return pending ? `The engine (${engine}) is thinking…` : `The engine (${engine}) is to move.`;
}

/** Why the engine played its last move, from the answer's own fields. */
function explain(answer) {
  const distance = answer.plies === null ? "" : ` in ${plies(answer.plies)}`;
  const value = answer.outcome
    ? {
        win: answer.plies === 1 ? "it wins with this move" : `it wins${distance}`,
        draw: "best play from both sides draws",
        loss: `it loses${distance} against best play`,
      }[answer.outcome]
    : `the search stopped (${answer.stopped_by}) at depth ${answer.depth}; ` +
      `estimated score ${signed(answer.score)}`;
  const line = answer.line.length > 1 ? ` Expected line: ${answer.line.map(cellName).join(", ")}.` : "";
  const best = answer.best_moves.length;
  const choice = answer.is_best
    ? best > 1 ? `one of ${best} equally good moves` : "the only best move"
    : `a deliberate slip (${answer.difficulty} sometimes plays a random move); ` +
      `best was ${cellName(answer.best_moves[0])}`;
  return `The engine played ${cellName(answer.move)}: ${value}. It is ${choice}.${line}`;
}

function render() {
  if (!game) return;
  renderBoard();
  statusLine.textContent = statusText();
  note.textContent = game.lastMove ? explain(game.lastMove) : "";
  undoButton.disabled = !game.history.length;
  legend.hidden = !hintsToggle.checked;
  const left = game.omitted?.count ?? 0;
  omittedNote.hidden = !left;
  omittedNote.textContent = left
    ? `Only the cells the search considered have hints: ${left} others, far from every ` +
      `stone, were left out${game.omitted.outcome ? ` (each a proven ${game.omitted.outcome})` : ""}.`
    : "";
  position.textContent = boardText(game.cells, game.cols);
}

function showError(error) {
  const problem =
    error instanceof ApiProblem
      ? error.problem
      : { title: "The server could not be reached", detail: String(error.message ?? error) };
  const title = document.createElement("strong");
  title.textContent = problem.title + (problem.status ? ` (${problem.status})` : "");
  const detail = document.createElement("p");
  detail.textContent = problem.detail ?? "";
  const fields = document.createElement("ul");
  for (const entry of problem.errors ?? []) {
    const item = document.createElement("li");
    const field = entry.pointer ?? entry.parameter ?? "body";
    item.textContent = entry.detail === problem.detail ? `at ${field}` : `${field}: ${entry.detail}`;
    fields.append(item);
  }
  errorBox.replaceChildren(title, detail, ...(fields.children.length ? [fields] : []));
  errorBox.hidden = false;
}

function clearError() {
  errorBox.hidden = true;
  errorBox.replaceChildren();
}

/** JSON with flat objects and arrays on one line, so a move list stays readable. */
function pretty(value) {
  return JSON.stringify(value, null, 2).replace(/([[{])\n\s+([^[\]{}]*?)\n\s*([\]}])/g,
    (_, open, inner, close) => `${open}${inner.replace(/\n\s*/g, " ")}${close}`);
}

function showExchange({ method, url, body, status, statusText, contentType, data, error, milliseconds }) {
  document.querySelector("#api-request").textContent =
    `${method} ${url}\nContent-Type: application/json\n\n${pretty(body)}`;
  document.querySelector("#api-response").textContent = status
    ? `${status} ${statusText} · ${milliseconds} ms\nContent-Type: ${contentType}\n\n${pretty(data)}`
    : `No answer: ${error}`;
}

// -- the setup form ----------------------------------------------------------------

function fillSelect(select, values, chosen) {
  select.replaceChildren(...values.map((value) => new Option(value, value)));
  select.value = String(chosen);
}

function offerK(chosen) {
  const rows = Number(setup.rows.value);
  const cols = Number(setup.cols.value);
  const ks = SIZES.filter((k) => k <= Math.max(rows, cols));
  fillSelect(setup.k, ks, chosen ?? Math.min(rows, cols, 5));
}

function showSetup() {
  setup.rows.value = String(game.rows);
  setup.cols.value = String(game.cols);
  setup.rule.value = game.rule;
  offerK(game.k);
  matchPreset();
  explainRule();
  setup.human.value = game.human;
  setup.first.value = game.first === game.human ? "you" : "engine";
}

/** Renju needs a word more than its option's name: show it while it is chosen. */
function explainRule() {
  ruleNote.hidden = setup.rule.value !== "renju";
}

// -- events --------------------------------------------------------------------------

/** The preset the form's fields match, or "custom". */
function matchPreset() {
  const fields = [setup.rows.value, setup.cols.value, setup.k.value, setup.rule.value].join(",");
  const known = [...setup.preset.options].some((option) => option.value === fields);
  setup.preset.value = known ? fields : "custom";
}

function applyPreset() {
  if (setup.preset.value === "custom") return;
  const [rows, cols, k, rule] = setup.preset.value.split(",");
  setup.rows.value = rows;
  setup.cols.value = cols;
  offerK(Number(k));
  setup.rule.value = rule;
  explainRule();
}

fillSelect(setup.rows, SIZES, 3);
fillSelect(setup.cols, SIZES, 3);
offerK();
setup.preset.addEventListener("change", applyPreset);
setup.rows.addEventListener("change", () => {
  offerK();
  matchPreset();
});
setup.cols.addEventListener("change", () => {
  offerK();
  matchPreset();
});
for (const field of [setup.k, setup.rule]) field.addEventListener("change", matchPreset);
setup.rule.addEventListener("change", explainRule);
setup.addEventListener("submit", (event) => {
  event.preventDefault();
  newGame();
});
undoButton.addEventListener("click", undo);
hintsToggle.addEventListener("change", () => act(refreshAnalysis));
loadForm.addEventListener("submit", (event) => {
  event.preventDefault();
  loadPosition(loadForm.board.value.trim());
});

boardView.addEventListener("click", (event) => {
  const button = event.target.closest("button");
  if (button) play(Number(button.dataset.index));
});
boardView.addEventListener("focusin", (event) => {
  focused = Number(event.target.dataset.index);
  render();
});
boardView.addEventListener("keydown", (event) => {
  const step = { ArrowLeft: [0, -1], ArrowRight: [0, 1], ArrowUp: [-1, 0], ArrowDown: [1, 0] }[
    event.key
  ];
  if (!step) return; // Enter and Space click the focused button
  event.preventDefault();
  const row = Math.floor(focused / game.cols) + step[0];
  const col = (focused % game.cols) + step[1];
  if (row < 0 || row >= game.rows || col < 0 || col >= game.cols) return;
  focused = row * game.cols + col;
  render();
  boardView.children[focused].focus();
});

observeExchanges(showExchange);
newGame();
