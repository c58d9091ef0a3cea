// DBOS Transact in the comparison: each job a workflow (id from the job's number) on a queue,
// whose one step is the handler. DBOS keeps its state in the run's own database (its "system
// database", schema dbos), so db-stats counts what it writes. DBOS is a process-wide singleton:
// each run launches it with that run's configuration and shuts it down, registrations cleared,
// so the next run (another database, maybe another handler) starts from nothing.
import { DBOS, DBOSClient, type DLogger } from "@dbos-inc/dbos-sdk";
import type pg from "pg";
import type { TestDatabaseUrls } from "../../../db/testing/cluster";
import { sinkInsert } from "./agent";
import type { Prepared, RunSpec } from "./systems";

const APP = "bench";
const QUEUE = "bench";
const WORKFLOW = "benchJob";
/**
 * Its queues are polled, every second by default, and a poll starts at most workerConcurrency
 * workflows: about 16 a second per process at concurrency 16, whatever the hardware.
 */
export const DBOS_POLL_MS = 10;
export const DBOS_POOL = 20;

/** Quiet but for errors: a workflow that failed would otherwise leave the run waiting, unexplained. */
const quiet: DLogger = {
  info: () => {},
  debug: () => {},
  warn: () => {},
  error: (e) => console.error("dbos:", e),
};

async function until(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((r) => setTimeout(r, 10));
}

/** DBOS.migrate logs through a console logger of its own that takes no level nor logger. */
async function quietly<T>(fn: () => Promise<T>): Promise<T> {
  const log = console.log;
  console.log = () => {};
  try {
    return await fn();
  } finally {
    console.log = log;
  }
}

export async function prepareDbos(
  db: TestDatabaseUrls,
  spec: RunSpec,
  sink: pg.Pool,
): Promise<Prepared> {
  // Setup, not timed: the schema, the queue, and every job enqueued, 500 per commit as ours are.
  await quietly(() => DBOS.migrate(db.superUrl));
  const client = await DBOSClient.create({
    systemDatabaseUrl: db.superUrl,
    systemDatabasePoolSize: 2,
    applicationName: APP,
    logger: quiet,
    systemDatabaseIdleTransactionTimeoutMs: 0,
  });
  try {
    await client.registerQueue(QUEUE, {
      workerConcurrency: spec.concurrency,
      minPollingIntervalMs: DBOS_POLL_MS,
    });
    const tx = await sink.connect();
    try {
      for (let i = 0; i < spec.jobs; i += 500) {
        await tx.query("begin");
        for (let n = i; n < Math.min(spec.jobs, i + 500); n++) {
          await client.enqueueInTransaction(
            tx,
            {
              queueName: QUEUE,
              workflowName: WORKFLOW,
              // The job's key, as the idempotency key of a real enqueue would be.
              workflowID: `bench-${n}`,
              appVersion: APP,
            },
            n,
          );
        }
        await tx.query("commit");
      }
    } finally {
      tx.release();
    }
  } finally {
    await client.destroy();
  }

  let handled = 0;
  DBOS.registerWorkflow(
    async (n: number) => {
      await DBOS.runStep(
        async () => {
          if (spec.handler === "insert") await sinkInsert(sink, n);
        },
        { name: "work" },
      );
      handled++;
    },
    { name: WORKFLOW },
  );
  DBOS.setConfig({
    name: APP,
    applicationVersion: APP,
    systemDatabaseUrl: db.superUrl,
    systemDatabasePoolSize: DBOS_POOL,
    runMigrations: false,
    logger: quiet,
    // Its pool sets this timeout on each new connection without awaiting the SET, which pg
    // answers with a deprecation warning; the server's setting does as well for a bench.
    systemDatabaseIdleTransactionTimeoutMs: 0,
  });
  const done = async () => {
    const { rows } = await sink.query<{ n: number }>(
      "select count(*)::int as n from dbos.workflow_status where queue_name = $1 and status = 'SUCCESS'",
      [QUEUE],
    );
    return rows[0]?.n ?? 0;
  };
  return {
    go: async () => {
      await DBOS.launch();
      await until(async () => handled >= spec.jobs);
      await until(async () => (await done()) >= spec.jobs);
    },
    completed: done,
    close: async () => {
      // Deregistered even when never launched: the next run registers its own workflow.
      await DBOS.shutdown({ deregister: true, workflowCompletionTimeoutMS: 5_000 });
    },
  };
}
