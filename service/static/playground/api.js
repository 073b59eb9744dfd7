// The one place the playground talks to the server: POST a JSON body, get JSON
// back, or an ApiProblem for a problem+json answer (RFC 9457). Copy it freely.

/** An error answer from the API: `problem` holds type, title, status, detail, ... */
export class ApiProblem extends Error {
  constructor(status, problem) {
    super(`${problem.title}: ${problem.detail ?? ""}`);
    this.status = status;
    this.problem = problem;
  }

  /** The problem type's slug: "game-over" for "/problems/game-over". */
  get slug() {
    return String(this.problem.type ?? "").split("/").pop();
  }
}

let observer = () => {};

/** Call `callback(exchange)` after every request, for the page's API panel. */
export function observeExchanges(callback) {
  observer = callback;
}

export async function post(path, body) {
  const started = performance.now();
  const exchange = { method: "POST", url: path, body };
  try {
    const response = await fetch(path, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Accept: "application/json, application/problem+json",
      },
      body: JSON.stringify(body),
    });
    exchange.status = response.status;
    exchange.statusText = response.statusText;
    exchange.contentType = response.headers.get("Content-Type");
    exchange.data = await response.json().catch(() => null);
    if (!response.ok) {
      // A proxy may answer an error without problem+json: make a problem of it.
      const problem = exchange.data?.title
        ? exchange.data
        : { title: `HTTP ${response.status} ${response.statusText}`, status: response.status };
      throw new ApiProblem(response.status, problem);
    }
    return exchange.data;
  } catch (error) {
    exchange.error = error;
    throw error;
  } finally {
    exchange.milliseconds = Math.round(performance.now() - started);
    observer(exchange);
  }
}
