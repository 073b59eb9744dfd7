// src/schema.ts is generated from the service's committed openapi/openapi.json:
// regenerating it must change nothing.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";

test("the generated types match openapi/openapi.json", () => {
  const check = spawnSync("npm", ["run", "--silent", "generate", "--", "--check"], {
    cwd: new URL("..", import.meta.url),
    encoding: "utf8",
  });
  assert.equal(
    check.status,
    0,
    `src/schema.ts is stale: run \`npm run generate\` in clients/typescript\n${check.stdout}${check.stderr}`,
  );
});
