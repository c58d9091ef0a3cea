// Group commit of successes against real PostgreSQL: attempts finishing together share one
// statement; a head another writer moved refuses the batch and each goes alone; a task whose
// lease is gone is answered "lost" while the rest of its batch succeeds.
import { describe, expect, it } from "vitest";
import { withTransaction } from "../../db/client";
import { setUpTestDatabase } from "../../db/testing/database";
import { watchNamedStatements } from "../../db/testing/statement-names";
import { appendLedger } from "../../lib/server/ledger/append-ledger";
import { verifyLedger } from "../../lib/server/ledger/verify-ledger";
import { type ClaimedAttempt, claimBatch } from "./claim-batch";
import { completionBatcher } from "./completion-batch";
import { effectBatchers } from "./effect-batch";
import { runtimeTestKit } from "./test-support";

const t = await setUpTestDatabase("completion_batch");
const kit = runtimeTestKit(t.pool);

async function claimN(agent: string, n: number): Promise<ClaimedAttempt[]> {
  for (let i = 0; i < n; i++) await kit.enqueue(agent, { i });
  return claimBatch(t.pool, "w-batch", [agent], n, 30_000);
}

const complete = (batcher: ReturnType<typeof completionBatcher>, c: ClaimedAttempt) =>
  batcher({
    taskId: c.task.id,
    result: { n: c.task.attempts },
    head: c.head,
    entry: {
      kind: "task.succeeded",
      actor: "worker:w-batch",
      taskId: c.task.id,
      data: { attempt: c.task.attempts },
    },
  });

describe("completionBatcher", () => {
  it("sends a lone success at once and the ones that arrive meanwhile together", async () => {
    const claimed = await claimN("batch-a", 12);
    const sent = watchNamedStatements(t.pool);
    const batcher = completionBatcher(t.pool, "w-batch", effectBatchers(t.pool, "w-batch"));
    const [first, ...rest] = claimed;
    if (!first) throw new Error("claim failed");
    const alone = complete(batcher, first);
    // Its statement leaves at the end of this turn of the event loop; the rest come after.
    await new Promise((resolve) => setImmediate(resolve));
    const done = await Promise.all([alone, ...rest.map((c) => complete(batcher, c))]);
    expect(done).toEqual(claimed.map(() => true));
    // The first went alone; the other 11 were waiting for it and went as one statement.
    expect(sent.count("runtime_complete_task")).toBe(1);
    expect(sent.count("runtime_complete_tasks")).toBe(1);
    for (const c of claimed) {
      expect((await kit.task(c.task.id)).status).toBe("succeeded");
      expect((await kit.entries(c.task.id)).map((e) => e.kind)).toEqual([
        "task.enqueued",
        "task.succeeded",
      ]);
      // The success was the attempt's first entry: it carries the start.
      expect(await kit.starts(c.task.id)).toEqual([
        { on: "task.succeeded", attempt: 1, actor: "worker:w-batch" },
      ]);
    }
    expect((await verifyLedger(t.pool)).problems).toEqual([]);
  });

  it("a batch whose head moved goes one by one; a lost lease is answered lost", async () => {
    const claimed = await claimN("batch-b", 6);
    // All six are sent in one turn of the event loop, so they go as one batch.
    const [moved, stolen] = [claimed[3], claimed[4]];
    if (!moved || !stolen) throw new Error("claim failed");
    // A reviewer's note lands on one task's stream; another task's lease passes to a second worker.
    await withTransaction(t.pool, (c) =>
      appendLedger(c, moved.head.stream, {
        kind: "test.note",
        actor: "user:r",
        taskId: moved.task.id,
      }),
    );
    await t.pool.query("update tasks set lease_owner = 'w-other' where id = $1", [stolen.task.id]);
    const sent = watchNamedStatements(t.pool);
    const batcher = completionBatcher(t.pool, "w-batch", effectBatchers(t.pool, "w-batch"));
    const done = await Promise.all(claimed.map((c) => complete(batcher, c)));
    expect(done).toEqual(claimed.map((c) => c !== stolen));
    // The batch of six was refused as a whole and its members went alone.
    expect(sent.count("runtime_complete_tasks")).toBe(1);
    expect(sent.count("runtime_complete_task")).toBe(6);
    expect((await kit.task(stolen.task.id)).status).toBe("running");
    expect((await kit.entries(stolen.task.id)).map((e) => e.kind)).not.toContain("task.succeeded");
    expect((await kit.entries(moved.task.id)).map((e) => e.kind)).toEqual([
      "task.enqueued",
      "test.note",
      "task.succeeded",
    ]);
    // Refused in the batch, it went alone on the moved head and still carries the start.
    expect((await kit.starts(moved.task.id)).map((s) => s.on)).toEqual(["task.succeeded"]);
    expect((await verifyLedger(t.pool)).problems).toEqual([]);
  });
});
