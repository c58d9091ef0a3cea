// For tests that need what a real run records rather than staged rows: the demo agents on a real
// worker, sending mail and refunds to the demo receivers over real sockets. Started before the
// file's tests and stopped after them (vitest hooks), on the file's own test database.
import type pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { withTransaction } from "../../db/client";
import { parseEnv } from "../../lib/env";
import { insertTask } from "../../lib/server/commands/enqueue-task";
import { createAgents, createModel } from "../agents";
import { lookUpInvoice } from "../agents/invoice-reminder";
import { startWorker } from "../runtime/worker";
import type { RunningWorker } from "../runtime/worker-config";
import { type DemoReceivers, startDemoReceivers } from "./receivers";

export type DemoTask = {
  status: string;
  version: number;
  dead_reason: string | null;
  result: unknown;
};

export type DemoWorker = {
  /** The receivers the agents send to (set once the file's tests start). */
  readonly receivers: DemoReceivers;
  /** Enqueues a task for a demo agent and returns its id. */
  run: (agent: string, input: unknown, actor?: string) => Promise<string>;
  /** Waits (up to 15 s) until the task is in one of `statuses`; throws when it never gets there. */
  until: (id: string, statuses: string[]) => Promise<DemoTask>;
};

export function demoWorker(
  pool: pg.Pool,
  options: {
    /**
     * A quick global retry policy (4 attempts, 20 ms apart) in place of what the agents' code
     * declares, so a failing run reaches its end state within a test.
     */
    quickRetries?: boolean;
    concurrency?: number;
    leaseMs?: number;
  } = {},
): DemoWorker {
  const { quickRetries = false, concurrency = 4, leaseMs = 1_000 } = options;
  let receivers: DemoReceivers | undefined;
  let worker: RunningWorker | undefined;
  beforeAll(async () => {
    if (quickRetries) {
      await pool.query(
        `insert into retry_policies (scope, max_attempts, backoff_initial_ms, backoff_factor, backoff_max_ms, attempt_timeout_ms, updated_by)
         values ('global', 4, 20, 1, 20, 10000, 'test')`,
      );
    }
    receivers = await startDemoReceivers();
    const config = parseEnv({ SMTP_URL: receivers.smtpUrl, PAYMENTS_URL: receivers.paymentsUrl });
    const agents = createAgents(config);
    worker = await startWorker({
      pool,
      agents: quickRetries ? agents.map((a) => ({ ...a, policy: {} })) : agents,
      model: createModel(config),
      concurrency,
      leaseMs,
      pollMs: 50,
      log: () => {},
    });
  });
  afterAll(async () => {
    await worker?.stop(1_000);
    await receivers?.stop();
  });
  return {
    get receivers() {
      if (!receivers) throw new Error("the demo receivers start before the file's tests");
      return receivers;
    },
    run: async (agent, input, actor = "test") => {
      const { taskId } = await withTransaction(pool, (c) => insertTask(c, { agent, input, actor }));
      return taskId;
    },
    until: async (id, statuses) => {
      for (let i = 0; i < 600; i++) {
        const { rows } = await pool.query<DemoTask>(
          "select status, version, dead_reason, result from tasks where id = $1",
          [id],
        );
        const row = rows[0];
        if (row && statuses.includes(row.status)) return row;
        await new Promise((r) => setTimeout(r, 25));
      }
      throw new Error(`task ${id} did not reach ${statuses.join("/")}`);
    },
  };
}

/** An invoice id the demo's invoice book has overdue, so the reminder agent sends an email. */
export function overdueInvoice(prefix: string): string {
  for (let i = 0; ; i++) if (lookUpInvoice(`${prefix}${i}`).daysOverdue > 0) return `${prefix}${i}`;
}
