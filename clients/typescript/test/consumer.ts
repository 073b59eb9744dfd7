// What a TypeScript caller may and may not write: `npm test` compiles this file
// against dist/ and fails on any error, and on any `@ts-expect-error` that no
// longer finds one.
import {
  type AnalysisAnswer,
  type BatchResult,
  createClient,
  isProblem,
  type MoveAnswer,
  ProblemError,
} from "../dist/index.js";

const client = createClient({ baseUrl: "http://127.0.0.1:8000", retries: 1, apiKey: "key" });

export async function play(): Promise<void> {
  const answer: MoveAnswer = await client.move({ board: "X...O....", difficulty: "hard", seed: 1 });
  const index: number = answer.move.index;
  const outcome: "win" | "draw" | "loss" | null = answer.outcome;
  const after: "in_progress" | "won" | "drawn" = answer.status_after;
  const analysis: AnalysisAnswer = await client.analysis({ board: "XX.OO....", k: 3 });
  const scores: number[] = analysis.moves.map((move) => move.score);
  const omitted: number = analysis.omitted.count;
  const gomoku: MoveAnswer = await client.move({ moves: ["h8", "h9", 112 + 1], rule: "exact" });
  const name: string = gomoku.move.name;
  void [omitted, name];
  const results: BatchResult[] = await client.batch([
    { board: "....X....", difficulty: "easy" },
    "XX.......",
  ]);
  for (const result of results) {
    const said: string = isProblem(result) ? result.detail : result.board_after;
    void said;
  }
  try {
    await client.health();
  } catch (error) {
    if (error instanceof ProblemError) {
      const status: number = error.status;
      const winner: unknown = error.problem.winner;
      const reason: unknown = error.problem.reason;
      const wait: number | undefined = error.retryAfterMs;
      void [status, winner, reason, wait];
    }
  }
  void [index, outcome, after, scores];

  // @ts-expect-error: a cell has no such field
  void answer.move.cell;
  // @ts-expect-error: a misspelt request field
  await client.move({ bord: "X...O...." });
  // @ts-expect-error: a difficulty the API does not have
  await client.move({ board: "X...O....", difficulty: "impossible" });
  // @ts-expect-error: analysis takes no difficulty
  await client.analysis({ board: "X...O....", difficulty: "easy" });
  // @ts-expect-error: k is a number
  await client.analysis({ board: "X...O....", k: "3" });
  // @ts-expect-error: a batch's requests are board strings or MoveRequest objects
  await client.batch(["X...O....", 9]);
  // @ts-expect-error: one board is not a batch
  await client.batch("X...O....");
  // @ts-expect-error: an API key is a string
  createClient({ baseUrl: "http://127.0.0.1:8000", apiKey: 42 });
  // @ts-expect-error: the base URL is required
  createClient({ retries: 2 });
}
