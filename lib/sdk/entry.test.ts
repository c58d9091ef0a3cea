// The published entry point: `import { … } from "agent-ledger"` resolves to entry/index.ts
// here (package.json "exports", condition "agent-ledger-source"; dist/index.js when installed), and the library example of docs/writing-agents.md runs against a real database.
import { describe, expect, it } from "vitest";
import { setUpTestDatabase } from "../../db/testing/database";
import { announce } from "../../examples/library";

const t = await setUpTestDatabase("sdk_entry");

describe('import from "agent-ledger"', () => {
  it("exports the library", async () => {
    const sdk = await import("agent-ledger");
    expect(Object.keys(sdk).sort()).toEqual([
      "EffectNotPerformedError",
      "InvalidEventError",
      "InvalidTaskBatchError",
      "InvalidTaskInputError",
      "NonRetryableError",
      "RateLimitedError",
      "SchemaVersionError",
      "assertSchemaCurrent",
      "checkSchema",
      "defineAgent",
      "defineTool",
      "enqueue",
      "enqueueMany",
      "migrate",
      "parseRetryAfter",
      "rateLimitedFrom",
      "sendEvent",
      "startWorker",
    ]);
  });

  it("the docs example enqueues once per key, and refuses bad input before the database", async () => {
    const first = await announce(t.appUrl, "deploy done");
    const again = await announce(t.appUrl, "deploy done");
    expect(first.created).toBe(true);
    expect(again).toEqual({ taskId: first.taskId, created: false });
    await expect(announce(t.appUrl, "x".repeat(501))).rejects.toThrow(
      /invalid input for announcer/,
    );
    const { rows } = await t.pool.query("select agent, created_by from tasks");
    expect(rows).toEqual([{ agent: "announcer", created_by: "library" }]);
  });
});
