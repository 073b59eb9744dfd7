// What the client sends again, how long it waits, and the headers it sends:
// scripted answers through an injected fetch, waits recorded instead of slept.
// No server needed.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { createClient, ProblemError, retryAfter } from "../dist/index.js";

const URL = "http://tictactoe.test";
const healthy = () => Response.json({ status: "ok" });
const problem = (status, headers = {}, extensions = {}) =>
  new Response(
    JSON.stringify({ type: `/problems/${status}`, title: "t", status, detail: "d", ...extensions }),
    { status, headers: { "content-type": "application/problem+json", ...headers } },
  );
const refused = () => new TypeError("fetch failed");
const timedOut = () => new DOMException("The operation was aborted due to timeout", "TimeoutError");
const cutOff = () =>
  new Response(
    new ReadableStream({ start: (stream) => stream.error(new TypeError("terminated")) }),
  );

/** A client whose fetch plays `steps` in turn (a Response to answer, an Error to throw). */
function scripted(steps, options = {}) {
  const sent = [];
  const waits = [];
  const queue = [...steps];
  const fetch = async (url, init) => {
    sent.push({ url, init });
    const step = queue.shift();
    if (step === undefined) throw new Error(`no answer scripted for request ${sent.length}`);
    const made = typeof step === "function" ? step() : step;
    if (made instanceof Error) throw made;
    return made;
  };
  const sleep = async (ms) => {
    waits.push(ms);
  };
  return { client: createClient({ baseUrl: URL, fetch, sleep, ...options }), sent, waits };
}

describe("transient failures are retried with backoff", () => {
  const cases = [
    ["503 once", [() => problem(503), healthy], [500]],
    [
      "503 thrice",
      [() => problem(503), () => problem(503), () => problem(503), healthy],
      [500, 1000, 2000],
    ],
    ["Retry-After", [() => problem(503, { "retry-after": "3" }), healthy], [3000]],
    [
      "backoff longer than Retry-After",
      [() => problem(503), () => problem(503), () => problem(503, { "retry-after": "1" }), healthy],
      [500, 1000, 2000],
    ],
    ["Retry-After capped", [() => problem(503, { "retry-after": "3600" }), healthy], [30000]],
    ["Retry-After unreadable", [() => problem(503, { "retry-after": "soon" }), healthy], [500]],
    ["connection refused", [refused, healthy], [500]],
    ["timeout, then 503", [timedOut, () => problem(503), healthy], [500, 1000]],
    ["connection lost mid-answer", [cutOff, healthy], [500]],
    [
      "429, rate",
      [() => problem(429, { "retry-after": "1" }, { reason: "rate" }), healthy],
      [1000],
    ],
    [
      "429, concurrency",
      [() => problem(429, { "retry-after": "4" }, { reason: "concurrency" }), healthy],
      [4000],
    ],
    [
      "429 and 503 share the retries",
      [() => problem(429), () => problem(503), () => problem(429, { "retry-after": "1" }), healthy],
      [500, 1000, 2000],
    ],
    ["429's Retry-After capped", [() => problem(429, { "retry-after": "3600" }), healthy], [30000]],
  ];
  for (const [name, steps, waits] of cases) {
    test(name, async () => {
      const run = scripted(steps);
      assert.deepEqual(await run.client.health(), { status: "ok" });
      assert.deepEqual(run.waits, waits);
      assert.equal(run.sent.length, steps.length);
    });
  }
});

test("Retry-After as an HTTP date is honoured", async () => {
  const later = new Date(Date.now() + 5000).toUTCString();
  const run = scripted([() => problem(503, { "retry-after": later }), healthy]);
  await run.client.health();
  assert.ok(run.waits[0] > 3500 && run.waits[0] <= 5000, `waited ${run.waits[0]} ms`);
});

for (const status of [400, 401, 404, 408, 413, 415, 422, 500]) {
  test(`${status} is never retried`, async () => {
    const run = scripted([() => problem(status, { "retry-after": "1" }), healthy]);
    await assert.rejects(run.client.move({ board: "X........" }), (error) => {
      assert.ok(error instanceof ProblemError);
      assert.equal(error.status, status);
      return true;
    });
    assert.equal(run.sent.length, 1);
    assert.deepEqual(run.waits, []);
  });
}

test("a 503 past the last retry is thrown", async () => {
  const run = scripted(
    Array(3).fill(() => problem(503, { "retry-after": "1" })),
    { retries: 2 },
  );
  await assert.rejects(run.client.analysis({ board: "X........" }), {
    name: "ProblemError",
    status: 503,
  });
  assert.equal(run.sent.length, 3);
  assert.deepEqual(run.waits, [1000, 1000]);
});

test("a 429 past the last retry is thrown with its reason and wait", async () => {
  const run = scripted(
    Array(3).fill(() => problem(429, { "retry-after": "7" }, { reason: "concurrency" })),
    { retries: 2 },
  );
  await assert.rejects(run.client.move({ board: "X........" }), (error) => {
    assert.ok(error instanceof ProblemError);
    assert.deepEqual(
      [error.status, error.problem.reason, error.retryAfterMs],
      [429, "concurrency", 7000],
    );
    return true;
  });
  assert.equal(run.sent.length, 3);
  assert.deepEqual(run.waits, [7000, 7000]);
});

describe("a final problem tells the wait it was given", () => {
  const cases = [
    ["in seconds, uncapped", { "retry-after": "120" }, 120_000],
    ["unreadable", { "retry-after": "soon" }, undefined],
    ["absent", {}, undefined],
  ];
  for (const [name, headers, ms] of cases) {
    test(name, async () => {
      const run = scripted([() => problem(429, headers, { reason: "rate" })], { retries: 0 });
      await assert.rejects(run.client.health(), (error) => {
        assert.equal(error.retryAfterMs, ms);
        return true;
      });
    });
  }
});

test("a chunk's problem keeps its wait", async () => {
  const item = { type: "/problems/x", title: "t", status: 422, detail: "d" };
  const run = scripted(
    [
      () => Response.json({ results: [item] }),
      () => problem(429, { "retry-after": "5" }, { reason: "rate" }),
    ],
    { retries: 0, batchLimit: 1 },
  );
  await assert.rejects(run.client.batch(["X........", "O........"]), (error) => {
    assert.deepEqual([error.problem.reason, error.retryAfterMs], ["rate", 5000]);
    return true;
  });
});

test("the API key goes with every request and retry", async () => {
  const steps = [() => problem(429, { "retry-after": "1" }), () => problem(503), healthy, healthy];
  const run = scripted(steps, { apiKey: "k3y-0f-~40-chars!" });
  await run.client.health();
  await run.client.move({ board: "X........" });
  assert.deepEqual(
    run.sent.map((request) => request.init.headers["x-api-key"]),
    Array(4).fill("k3y-0f-~40-chars!"),
  );
});

test("without an API key none is sent", async () => {
  const run = scripted([healthy]);
  await run.client.health();
  assert.ok(!("x-api-key" in run.sent[0].init.headers));
});

describe("a malformed API key is refused without being echoed", () => {
  const secret = "s3cret";
  const cases = [
    ["empty", "", "it is empty"],
    ["too long", secret.repeat(22), "it has 132 characters"],
    ["space", `${secret} 1`, "character 7 is outside that range"],
    ["tab", `${secret}\t`, "character 7 is outside that range"],
    ["newline", `\n${secret}`, "character 1 is outside that range"],
    ["delete", `${secret}\x7f`, "character 7 is outside that range"],
    ["non-ASCII", `${secret}\u00e9`, "character 7 is outside that range"],
  ];
  for (const [name, apiKey, fault] of cases) {
    test(name, () => {
      assert.throws(
        () => createClient({ baseUrl: URL, apiKey }),
        (error) => {
          assert.equal(error.name, "RangeError");
          assert.equal(
            error.message,
            `apiKey must be 1 to 128 visible ASCII characters (0x21-0x7E); ${fault}`,
          );
          return true;
        },
      );
    });
  }
});

test("a well-formed API key is taken", () => {
  for (const apiKey of ["!", "~".repeat(128), "Ab0-_.:/+=~!"])
    createClient({ baseUrl: URL, apiKey });
});

test("a failed fetch past the last retry is thrown as it was", async () => {
  const run = scripted(Array(4).fill(refused));
  await assert.rejects(run.client.health(), { name: "TypeError", message: "fetch failed" });
  assert.deepEqual(run.waits, [500, 1000, 2000]);
});

test("an error that is not a network failure is not retried", async () => {
  const run = scripted([() => new RangeError("a bug"), healthy]);
  await assert.rejects(run.client.health(), RangeError);
  assert.equal(run.sent.length, 1);
});

test("no retries means one attempt", async () => {
  const run = scripted([() => problem(503)], { retries: 0 });
  await assert.rejects(run.client.health(), ProblemError);
  assert.equal(run.sent.length, 1);
});

test("waits stop growing at the cap", async () => {
  const run = scripted([...Array(7).fill(() => problem(503)), healthy], { retries: 7 });
  await run.client.health();
  assert.deepEqual(run.waits, [500, 1000, 2000, 4000, 8000, 8000, 8000]);
});

test("each call has its own retries", async () => {
  const steps = [
    () => problem(503),
    () => problem(503),
    healthy,
    () => problem(503),
    () => problem(503),
    healthy,
  ];
  const run = scripted(steps, { retries: 2 });
  await run.client.health();
  await run.client.health();
  assert.deepEqual(run.waits, [500, 1000, 500, 1000]);
});

test("each attempt is aborted after timeoutMs, then retried", async () => {
  const waits = [];
  let attempts = 0;
  const fetch = (url, init) => {
    attempts += 1;
    if (attempts > 1) return Promise.resolve(healthy());
    return new Promise((_, reject) =>
      init.signal.addEventListener("abort", () => reject(init.signal.reason)),
    );
  };
  const client = createClient({
    baseUrl: URL,
    fetch,
    timeoutMs: 20,
    sleep: async (ms) => waits.push(ms),
  });
  assert.deepEqual(await client.health(), { status: "ok" });
  assert.deepEqual([attempts, waits], [2, [500]]);
});

test("a batch retries each chunk alone and counts pointers in the whole list", async () => {
  const item = {
    type: "/problems/illegal-position",
    title: "t",
    status: 422,
    detail: "/requests/0/board: d",
  };
  const chunk = () =>
    Response.json({
      results: [{ ...item, errors: [{ pointer: "/requests/0/board", detail: "d" }] }],
    });
  const run = scripted([chunk, () => problem(503), chunk], { batchLimit: 1 });
  const results = await run.client.batch([{ board: "XX......." }, { board: "OO......." }]);
  assert.equal(run.sent.length, 3);
  assert.deepEqual(run.waits, [500]);
  assert.deepEqual(
    results.map((r) => [r.errors[0].pointer, r.detail]),
    [
      ["/requests/0/board", "/requests/0/board: d"],
      ["/requests/1/board", "/requests/1/board: d"],
    ],
  );
});

test("requests are sent as JSON, health without a body", async () => {
  const run = scripted([() => Response.json({}), healthy], { baseUrl: `${URL}/` });
  await run.client.move({ board: "X........", k: 3, difficulty: "easy", seed: 7 });
  await run.client.health();
  const [move, health] = run.sent;
  assert.equal(move.url, `${URL}/v1/move`);
  assert.equal(move.init.method, "POST");
  assert.equal(move.init.headers["content-type"], "application/json");
  assert.deepEqual(JSON.parse(move.init.body), {
    board: "X........",
    k: 3,
    difficulty: "easy",
    seed: 7,
  });
  assert.deepEqual(
    [health.url, health.init.method, health.init.body],
    [`${URL}/readyz`, "GET", null],
  );
});

describe("an answer that is no problem becomes about:blank", () => {
  const cases = [
    [
      "html",
      () => new Response("<h1>Bad Gateway</h1>", { status: 502, statusText: "Bad Gateway" }),
      "Bad Gateway",
      "<h1>Bad Gateway</h1>",
    ],
    [
      "empty",
      () => new Response("", { status: 500, statusText: "Internal Server Error" }),
      "Internal Server Error",
      "the server answered 500 without a body",
    ],
    [
      "JSON, but not a problem",
      () => Response.json({ message: "no" }, { status: 404 }),
      "HTTP 404",
      '{"message":"no"}',
    ],
    ["broken problem+json", () => problemText("{oops", 400), "HTTP 400", "{oops"],
  ];
  for (const [name, answer, title, detail] of cases) {
    test(name, async () => {
      const run = scripted([answer]);
      await assert.rejects(run.client.health(), (error) => {
        assert.ok(error instanceof ProblemError);
        assert.deepEqual(error.problem, {
          type: "about:blank",
          title,
          status: error.status,
          detail,
        });
        return true;
      });
    });
  }
});

function problemText(text, status) {
  return new Response(text, { status, headers: { "content-type": "application/problem+json" } });
}

test("Retry-After reads whole seconds and HTTP dates", () => {
  assert.equal(retryAfter("0"), 0);
  assert.equal(retryAfter(" 7 "), 7000);
  assert.equal(retryAfter("-1"), undefined);
  assert.equal(retryAfter("1.5"), undefined);
  assert.equal(retryAfter(""), undefined);
  assert.equal(retryAfter(null), undefined);
  assert.equal(retryAfter("Thu, 01 Jan 1970 00:01:40 GMT", 40_000), 60_000);
  assert.equal(retryAfter("Thu, 01 Jan 1970 00:00:00 GMT"), 0);
});

test("settings are checked up front", () => {
  assert.throws(() => createClient({ baseUrl: URL, retries: -1 }), {
    name: "RangeError",
    message: "retries must be 0 or more, not -1",
  });
  assert.throws(() => createClient({ baseUrl: URL, batchLimit: 0 }), {
    name: "RangeError",
    message: "batchLimit must be 1 or more, not 0",
  });
});
