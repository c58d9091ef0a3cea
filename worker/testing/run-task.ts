// agent-ledger/testing's runTask: one task of an agent, run by a worker in this process against
// a test database until it settles, read back with its effects and ledger entries.
import type { z } from "zod";
import type { Agent } from "../../lib/sdk/define";
import { enqueue } from "../../lib/sdk/enqueue";
import type { ModelClient } from "../../lib/sdk/model";
import { startWorker } from "../start-worker";
import { type TaskReport, taskReport, waitSettled } from "./task-report";
import type { TestDatabase } from "./test-database";

export type RunTaskOptions<A extends Agent> = {
  agent: A;
  input: z.input<A["input"]>;
  /** An enqueue key: the same key returns the first task. */
  key?: string;
  model?: ModelClient;
  /** Other agents the worker runs beside `agent`. */
  with?: readonly Agent[];
  /** How long the task may take to settle (default 30 s). */
  timeoutMs?: number;
};

/** Runs until the task succeeds, is rejected or cancelled, dies, or waits for an approval. */
export async function runTask<A extends Agent>(
  db: Pick<TestDatabase, "pool">,
  options: RunTaskOptions<A>,
): Promise<TaskReport> {
  const worker = await startWorker({
    pool: db.pool,
    agents: [options.agent, ...(options.with ?? [])],
    model: options.model,
    alerts: false,
    verifyLedger: false,
    leaseMs: 5_000,
  });
  try {
    const { taskId } = await enqueue(db.pool, {
      agent: options.agent,
      input: options.input,
      key: options.key,
    });
    await waitSettled(db.pool, [taskId], options.timeoutMs ?? 30_000);
    return await taskReport(db.pool, taskId);
  } finally {
    await worker.stop(1_000);
  }
}
