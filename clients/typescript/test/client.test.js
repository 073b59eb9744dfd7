// The built client against a real server, whose address TICTACTOE_URL gives
// (tests/clients/test_typescript.py starts one with TICTACTOE_BATCH_LIMIT).
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { createClient, isProblem, ProblemError } from "../dist/index.js";

const url = process.env.TICTACTOE_URL;
const batchLimit = Number(process.env.TICTACTOE_BATCH_LIMIT ?? 100);
const live = { skip: url ? false : "TICTACTOE_URL names no server" };
const client = createClient({ baseUrl: url ?? "http://127.0.0.1:9", batchLimit });

/** What the server itself answers to a POST, for comparison. */
async function raw(path, body) {
  const response = await fetch(url + path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return response.json();
}

describe("answers are the server's JSON, whole", live, () => {
  const moves = [
    [{ board: "....X...." }, 0, "draw"],
    [{ board: "xx./oo./..." }, 2, "win"],
    [{ board: ".........", player: "O" }, 0, "draw"],
    [{ board: ".".repeat(16), k: 3 }, 5, "win"],
    [{ board: ".".repeat(12), rows: 3, cols: 4, k: 3 }, 1, "win"],
    [{ board: "....X....", difficulty: "easy", seed: 11 }, 8, "draw"],
    // A gomoku game as its moves: O faces X's open four h8-k8, so every move loses
    // (an exact answer: the first listed cell, f10 = 80).
    [{ moves: ["h8", "a1", "i8", "a3", "j8", "a5", "k8"] }, 80, "loss"],
    [{ moves: ["h8", "a1", "i8", "a3", "j8", "a5", "k8"], rule: "exact" }, 80, "loss"],
  ];
  for (const [request, index, outcome] of moves) {
    test(`move ${JSON.stringify(request)}`, async () => {
      const answer = await client.move(request);
      assert.deepEqual([answer.move.index, answer.outcome], [index, outcome]);
      assert.deepEqual(answer, await raw("/v1/move", request));
    });
  }
  for (const request of [
    { board: "XX.OO...." },
    { board: "XXXOO...." },
    { board: ".".repeat(16), k: 3 },
  ]) {
    test(`analysis ${JSON.stringify(request)}`, async () => {
      assert.deepEqual(await client.analysis(request), await raw("/v1/analysis", request));
    });
  }
});

test("a move answer reads as documented", live, async () => {
  const answer = await client.move({ board: "xx./oo./..." });
  assert.deepEqual(answer.move, { index: 2, row: 0, col: 2, name: "c3" });
  assert.deepEqual([answer.player, answer.score, answer.exact], ["X", 9, true]);
  assert.deepEqual(
    answer.best_moves.map((cell) => cell.index),
    [2],
  );
  assert.deepEqual(
    [answer.status_after, answer.winner_after, answer.winning_lines_after],
    ["won", "X", [[0, 1, 2]]],
  );
});

test("analysis ranks the moves", live, async () => {
  const answer = await client.analysis({ board: "XX.OO...." });
  assert.deepEqual(
    answer.moves.slice(0, 2).map((m) => [m.index, m.outcome]),
    [
      [2, "win"],
      [5, "draw"],
    ],
  );
  const finished = await client.analysis({ board: "XXXOO...." });
  assert.deepEqual([finished.status, finished.winner, finished.moves], ["won", "X", []]);
});

test("a batch spans chunks and keeps its order", live, async () => {
  const sizes = [];
  const counting = createClient({
    baseUrl: url,
    batchLimit,
    fetch: (input, init) => {
      if (String(input).endsWith("/v1/batch")) sizes.push(JSON.parse(init.body).requests.length);
      return fetch(input, init);
    },
  });
  const boards = [...Array(9).keys()].map((i) => `${".".repeat(i)}X${".".repeat(8 - i)}`);
  const requests = [...boards, "X........"].map((board, seed) => ({
    board,
    seed,
    difficulty: "medium",
  }));
  requests.push({ board: "OO......." });
  const results = await counting.batch(requests);
  assert.deepEqual(sizes, [5, 5, 1]);
  const singles = await Promise.all(requests.slice(0, -1).map((request) => client.move(request)));
  assert.deepEqual(results.slice(0, -1), singles);
  const last = results.at(-1);
  assert.ok(isProblem(last));
  assert.equal(last.type, "/problems/illegal-position");
  assert.equal(last.errors[0].pointer, "/requests/10/board");
});

test("a batch refused whole names the request in the whole list", live, async () => {
  const requests = [...Array(7).fill({ board: "........." }), { board: ".........", k: 21 }];
  await assert.rejects(client.batch(requests), (error) => {
    assert.ok(error instanceof ProblemError);
    assert.equal(error.type, "/problems/validation");
    assert.deepEqual(
      error.problem.errors.map((e) => e.pointer),
      ["/requests/7/k"],
    );
    assert.match(error.detail, /\/requests\/7\/k/);
    return true;
  });
});

test("a batch takes board strings as well as objects", live, async () => {
  const options = { k: 3, difficulty: "easy", seed: 4 };
  const objects = [
    { board: "....X...." },
    { board: ".".repeat(16), ...options },
    { board: "XX.OO...." },
  ];
  const mixed = ["....X....", { board: ".".repeat(16), ...options }, "XX.OO...."];
  const requests = [...objects, ...objects];
  const forms = [...mixed, ...mixed];
  assert.ok(forms.length > batchLimit);
  const results = await client.batch(forms);
  assert.deepEqual(results, await client.batch(requests));
  assert.deepEqual(results[0], await client.move({ board: "....X...." }));
});

describe("a batch refuses what is not a request before sending anything", () => {
  const quiet = createClient({
    baseUrl: "http://127.0.0.1:9",
    fetch: () => assert.fail("sent a request"),
  });
  const accepted =
    "a request is a board string or a MoveRequest object ({ board, ... } or { moves, ... })";
  const items = [
    [9, "9 (number)"],
    [null, "null (null)"],
    [undefined, "undefined (undefined)"],
    [["X...O...."], '["X...O...."] (array)'],
    [true, "true (boolean)"],
  ];
  for (const [item, quoted] of items) {
    test(`requests[1] = ${quoted}`, async () => {
      await assert.rejects(quiet.batch(["X...O....", item, "X...O...."]), {
        name: "TypeError",
        message: `batch(): requests[1] is ${quoted}; ${accepted}`,
      });
    });
  }
  const singles = [
    ["X...O....", '"X...O...." (string)'],
    [{ board: "X...O...." }, '{"board":"X...O...."} (object)'],
    [undefined, "undefined (undefined)"],
  ];
  for (const [requests, quoted] of singles) {
    test(`one request in place of the array: ${quoted}`, async () => {
      await assert.rejects(quiet.batch(requests), {
        name: "TypeError",
        message: `batch() takes an array of requests, not ${quoted}; pass [request] for a single one`,
      });
    });
  }
});

test("an empty batch sends nothing", async () => {
  const quiet = createClient({
    baseUrl: "http://127.0.0.1:9",
    fetch: () => assert.fail("sent a request"),
  });
  assert.deepEqual(await quiet.batch([]), []);
});

test("a batch limit above the server's is its problem", live, async () => {
  const greedy = createClient({ baseUrl: url, batchLimit: batchLimit + 1 });
  const requests = Array(batchLimit + 1).fill({ board: "........." });
  await assert.rejects(greedy.batch(requests), {
    name: "ProblemError",
    type: "/problems/batch-too-large",
  });
});

describe("a problem throws with everything the server said", live, () => {
  const problems = [
    [{ board: "XXXOO...." }, "/problems/game-over", null],
    [{ board: "XQ......." }, "/problems/invalid-board", "/board"],
    [{ board: "XX......." }, "/problems/illegal-position", "/board"],
    [{ board: "X........", player: "X" }, "/problems/illegal-position", "/player"],
    [{ board: ".........", k: 21 }, "/problems/validation", "/k"],
    [{ board: ".........", seed: -1 }, "/problems/validation", "/seed"],
  ];
  for (const [request, type, pointer] of problems) {
    test(`${type} for ${JSON.stringify(request)}`, async () => {
      const expected = await raw("/v1/move", request);
      await assert.rejects(client.move(request), (error) => {
        assert.ok(error instanceof ProblemError && error instanceof Error);
        assert.deepEqual(error.problem, expected);
        assert.deepEqual([error.type, error.status, error.title], [type, 422, expected.title]);
        assert.deepEqual(
          (error.problem.errors ?? []).map((e) => e.pointer),
          pointer ? [pointer] : [],
        );
        assert.equal(error.message, `422 ${expected.title}: ${expected.detail}`);
        return true;
      });
    });
  }
});

test("game over carries the winner", live, async () => {
  await assert.rejects(client.move({ board: "XXXOO...." }), (error) => {
    assert.deepEqual([error.problem.winner, error.problem.winning_lines], ["X", [[0, 1, 2]]]);
    return true;
  });
});

test("health", live, async () => {
  assert.deepEqual(await client.health(), { status: "ok" });
  assert.deepEqual(await createClient({ baseUrl: `${url}/` }).health(), { status: "ok" });
});

test("an unreachable server is retried, then its error thrown", async () => {
  const waits = [];
  const nowhere = createClient({
    baseUrl: "http://127.0.0.1:9",
    sleep: async (ms) => waits.push(ms),
  });
  await assert.rejects(nowhere.health(), TypeError);
  assert.deepEqual(waits, [500, 1000, 2000]);
});
