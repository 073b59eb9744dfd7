/**
 * A typed client for tictactoe-service over `fetch`, for browsers and Node 20+.
 *
 * The types come from `schema.ts`, generated from the service's committed
 * `openapi/openapi.json` (`npm run generate`; a test fails when they drift).
 * Error answers throw `ProblemError`; a `503`, a `429` and a failed `fetch` are
 * tried again with the same policy as the Python client.
 */

import type { components } from "./schema.js";

type Schemas = components["schemas"];
export type MoveRequest = Schemas["MoveRequest"];
export type AnalysisRequest = Schemas["AnalysisRequest"];
export type MoveAnswer = Schemas["MoveAnswer"];
export type AnalysisAnswer = Schemas["AnalysisAnswer"];
export type Cell = Schemas["Cell"];
export type MoveValue = Schemas["MoveValue"];
/** What an analysis leaves out on boards of 8x8 and more, and their proven value if any. */
export type OmittedMoves = Schemas["OmittedMoves"];
/** `freestyle` (k or more in a row win), `exact` (exactly k: Gomocup's standard rule) or
 * `renju` (k = 5; X, Black, wins with exactly five and may not play its forbidden cells). */
export type Rule = NonNullable<MoveRequest["rule"]>;
/** Under renju with X to move, a cell X may not play and why (`AnalysisAnswer.forbidden`). */
export type ForbiddenCell = Schemas["ForbiddenCell"];
export type Difficulty = Schemas["Difficulty"];
export type Health = Schemas["Health"];
/** An RFC 9457 problem: `type`, `title`, `status`, `detail`, and extensions by type. */
export type Problem = Schemas["ProblemDetail"];
export type BatchResult = MoveAnswer | Problem;
export type { components, paths } from "./schema.js";

export const DEFAULT_RETRIES = 3;
/** The server's `TTT_BATCH_LIMIT` by default; the API does not publish its limit. */
export const DEFAULT_BATCH_LIMIT = 100;
export const DEFAULT_TIMEOUT_MS = 30_000;
const FIRST_WAIT_MS = 500;
const MAX_WAIT_MS = 8_000;
const MAX_RETRY_AFTER_MS = 30_000;
const RETRIED_STATUSES: ReadonlySet<number> = new Set([429, 503]);
/** What the server takes as `X-API-Key`; it answers 400 to anything else. */
const MAX_API_KEY_LENGTH = 128;
const REQUEST_POINTER = /(?<![\w/])\/requests\/(\d+)\b/g;

export interface ClientOptions {
  /** Where the service answers, e.g. `http://127.0.0.1:8000`. */
  baseUrl: string;
  /** The `fetch` to use; the global one by default. */
  fetch?: typeof fetch;
  /** How often a `503`, a `429` or a failed `fetch` is tried again (3). */
  retries?: number;
  /** Requests per `POST /v1/batch`; longer lists are sent in chunks (100). */
  batchLimit?: number;
  /** Each attempt is aborted after this long (30 s). */
  timeoutMs?: number;
  /**
   * Sent as `X-API-Key` with every request: a key the server knows has its own
   * quota. One the server would refuse as malformed (empty, over 128
   * characters, or outside visible ASCII) throws a `RangeError` here.
   */
  apiKey?: string;
  /** How retries wait; tests pass one that does not. */
  sleep?: (ms: number) => Promise<void>;
}

export interface Client {
  /**
   * The move to play (`POST /v1/move`). Name the position by `board` (its cells)
   * or by `moves` (the game so far: cell indices or coordinates such as "h8").
   */
  move(request: MoveRequest): Promise<MoveAnswer>;
  /**
   * The legal moves' values, best first (`POST /v1/analysis`): every one where
   * the exact core answers, the big-board search's candidates where it does,
   * with `omitted` for the rest.
   */
  analysis(request: AnalysisRequest): Promise<AnalysisAnswer>;
  /**
   * One result per request, in order: a move answer, or the problem with that
   * request. A request is a board string or a `MoveRequest` object; anything
   * else rejects with a `TypeError` before anything is sent. A problem with a
   * whole chunk throws, its pointers indexing `requests`.
   */
  batch(requests: readonly (MoveRequest | string)[]): Promise<BatchResult[]>;
  /** `ok` once the server is ready (`GET /readyz`); a `503` is retried, then thrown. */
  health(): Promise<Health>;
}

/**
 * The server answered with a problem (after any retries). A `429`'s
 * `problem.reason` says which quota was met, `rate` or `concurrency`.
 */
export class ProblemError extends Error {
  readonly problem: Problem;
  /** What the answer's `Retry-After` asked for (a `429` or a `503`), uncapped, in ms. */
  readonly retryAfterMs: number | undefined;

  constructor(problem: Problem, retryAfterMs?: number) {
    super(`${problem.status} ${problem.title}: ${problem.detail}`);
    this.name = "ProblemError";
    this.problem = problem;
    this.retryAfterMs = retryAfterMs;
  }

  get type(): string {
    return this.problem.type;
  }

  get title(): string {
    return this.problem.title;
  }

  get status(): number {
    return this.problem.status;
  }

  get detail(): string {
    return this.problem.detail;
  }
}

/** Whether a batch result is a problem rather than a move answer. */
export function isProblem(result: BatchResult): result is Problem {
  return "type" in result && "status" in result;
}

export function createClient(options: ClientOptions): Client {
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const fetcher = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const retries = options.retries ?? DEFAULT_RETRIES;
  const batchLimit = options.batchLimit ?? DEFAULT_BATCH_LIMIT;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const sleep =
    options.sleep ?? ((ms: number) => new Promise<void>((done) => setTimeout(done, ms)));
  if (!Number.isInteger(retries) || retries < 0) {
    throw new RangeError(`retries must be 0 or more, not ${retries}`);
  }
  if (!Number.isInteger(batchLimit) || batchLimit < 1) {
    throw new RangeError(`batchLimit must be 1 or more, not ${batchLimit}`);
  }
  if (options.apiKey !== undefined) checkApiKey(options.apiKey);
  const headers: Record<string, string> =
    options.apiKey === undefined ? {} : { "x-api-key": options.apiKey };

  async function send<T>(method: "GET" | "POST", path: string, body?: unknown): Promise<T> {
    for (let attempt = 0; ; attempt += 1) {
      let response: Response;
      let text: string;
      // A timer of our own, not AbortSignal.timeout(): Node does not wait for
      // that one's timer, so a process with nothing else to do would end while
      // the request is still pending.
      const controller = new AbortController();
      const timer = setTimeout(
        () => controller.abort(new DOMException(`no answer in ${timeoutMs} ms`, "TimeoutError")),
        timeoutMs,
      );
      try {
        response = await fetcher(baseUrl + path, {
          method,
          headers:
            body === undefined
              ? { ...headers }
              : { ...headers, "content-type": "application/json" },
          body: body === undefined ? null : JSON.stringify(body),
          signal: controller.signal,
        });
        text = await response.text(); // inside: a connection lost mid-answer is retried too
      } catch (error) {
        if (attempt >= retries || !isTransient(error)) throw error;
        await sleep(backoff(attempt));
        continue;
      } finally {
        clearTimeout(timer);
      }
      const asked = retryAfter(response.headers.get("retry-after"));
      if (RETRIED_STATUSES.has(response.status) && attempt < retries) {
        await sleep(Math.max(backoff(attempt), Math.min(asked ?? 0, MAX_RETRY_AFTER_MS)));
        continue;
      }
      if (response.ok) return JSON.parse(text) as T;
      throw new ProblemError(problemOf(response, text), asked);
    }
  }

  return {
    move: (request) => send<MoveAnswer>("POST", "/v1/move", request),
    analysis: (request) => send<AnalysisAnswer>("POST", "/v1/analysis", request),
    health: () => send<Health>("GET", "/readyz"),
    async batch(requests) {
      const pending = moveRequests(requests);
      const results: BatchResult[] = [];
      for (let offset = 0; offset < pending.length; offset += batchLimit) {
        const chunk = pending.slice(offset, offset + batchLimit);
        let answer: Schemas["BatchAnswer"];
        try {
          answer = await send<Schemas["BatchAnswer"]>("POST", "/v1/batch", { requests: chunk });
        } catch (error) {
          if (error instanceof ProblemError && offset > 0) {
            throw new ProblemError(shiftPointers(error.problem, offset), error.retryAfterMs);
          }
          throw error;
        }
        for (const result of answer.results) {
          results.push(isProblem(result) ? shiftPointers(result, offset) : result);
        }
      }
      return results;
    },
  };
}

/** A `RangeError` for a key the server would refuse; the message never quotes the key. */
function checkApiKey(apiKey: unknown): void {
  let fault: string | undefined;
  if (typeof apiKey !== "string") {
    fault = `it is a ${typeof apiKey}, not a string`;
  } else if (apiKey === "") {
    fault = "it is empty";
  } else if (apiKey.length > MAX_API_KEY_LENGTH) {
    fault = `it has ${apiKey.length} characters`;
  } else {
    const position = [...apiKey].findIndex((character) => !/^[\x21-\x7e]$/.test(character));
    if (position >= 0) fault = `character ${position + 1} is outside that range`;
  }
  if (fault !== undefined) {
    throw new RangeError(
      `apiKey must be 1 to ${MAX_API_KEY_LENGTH} visible ASCII characters (0x21-0x7E); ${fault}`,
    );
  }
}

/**
 * Each request as a `MoveRequest` object: a board string becomes `{ board }`.
 * Callers without TypeScript's checks get a `TypeError` that names what is accepted.
 */
function moveRequests(requests: unknown): MoveRequest[] {
  if (!Array.isArray(requests)) {
    throw new TypeError(
      `batch() takes an array of requests, not ${quote(requests)}; pass [request] for a single one`,
    );
  }
  return requests.map((request: unknown, index) => {
    if (typeof request === "string") return { board: request };
    if (typeof request === "object" && request !== null && !Array.isArray(request)) {
      return request as MoveRequest;
    }
    throw new TypeError(
      `batch(): requests[${index}] is ${quote(request)}; ` +
        "a request is a board string or a MoveRequest object ({ board, ... } or { moves, ... })",
    );
  });
}

/** A value as an error message quotes it: its JSON (or its text) and its kind. */
function quote(value: unknown): string {
  const kind = value === null ? "null" : Array.isArray(value) ? "array" : typeof value;
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    // a bigint or a cycle: its text below
  }
  return `${(text ?? String(value)).slice(0, 80)} (${kind})`;
}

/** Waits double from half a second up to eight. */
function backoff(attempt: number): number {
  return Math.min(FIRST_WAIT_MS * 2 ** attempt, MAX_WAIT_MS);
}

/** A failed `fetch`: no connection, a reset, or our own timeout. */
function isTransient(error: unknown): boolean {
  return (
    error instanceof TypeError || (error instanceof DOMException && error.name === "TimeoutError")
  );
}

/** Milliseconds a `Retry-After` header asks for: whole seconds or an HTTP date. */
export function retryAfter(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const moment = Date.parse(text);
  return Number.isNaN(moment) || !/GMT$/.test(text) ? undefined : Math.max(moment - now, 0);
}

/** The problem an error answer carries; anything else becomes `about:blank` (RFC 9457). */
function problemOf(response: Response, text: string): Problem {
  const contentType = response.headers.get("content-type") ?? "";
  const mediaType = (contentType.split(";")[0] ?? "").trim().toLowerCase();
  if (mediaType === "application/problem+json" || mediaType === "application/json") {
    try {
      const data: unknown = JSON.parse(text);
      if (isProblemShaped(data)) return data;
    } catch {
      // not JSON after all: described below
    }
  }
  return {
    type: "about:blank",
    title: response.statusText || `HTTP ${response.status}`,
    status: response.status,
    detail: text.trim().slice(0, 500) || `the server answered ${response.status} without a body`,
  };
}

function isProblemShaped(data: unknown): data is Problem {
  if (typeof data !== "object" || data === null) return false;
  const fields = data as Record<string, unknown>;
  return (
    typeof fields.type === "string" &&
    typeof fields.title === "string" &&
    typeof fields.status === "number" &&
    typeof fields.detail === "string"
  );
}

/** `/requests/2/board` in the chunk at offset 100 is `/requests/102/board`. */
function shiftPointers(problem: Problem, offset: number): Problem {
  if (offset === 0) return problem;
  const shift = (text: string) =>
    text.replace(REQUEST_POINTER, (_, index: string) => `/requests/${Number(index) + offset}`);
  const shifted: Problem = { ...problem, detail: shift(problem.detail) };
  if (Array.isArray(problem.errors)) {
    shifted.errors = problem.errors.map((entry: unknown) => {
      const hasPointer = typeof entry === "object" && entry !== null && "pointer" in entry;
      return hasPointer && typeof entry.pointer === "string"
        ? { ...entry, pointer: shift(entry.pointer) }
        : entry;
    });
  }
  return shifted;
}
