// `node --import tsx scripts/enqueue-bench.ts [--tasks 10000] [--clients 16] [--posts 2000]`:
// bulk enqueue against one at a time, on one throwaway PostgreSQL in one process, and the
// single POST /api/v1/tasks latency under concurrent clients (the real route handler, in
// process: no HTTP server, so the figure is our code and the database). `benchEnqueue` is the
// section `npm run bench` can call. Prints a markdown table; figures are never asserted.
import { parseArgs } from "node:util";
import type pg from "pg";
import { createPool, withTransaction } from "../db/client";
import { createTestDatabaseFrom, dropTestDatabase, startTestCluster } from "../db/testing/cluster";
import { toJsonValue } from "../lib/domain/json";
import { env } from "../lib/env";
import { enqueue } from "../lib/sdk/enqueue";
import { enqueueMany } from "../lib/sdk/enqueue-many";
import { TASKS_CHANNEL } from "../lib/server/commands/insert-tasks";
import { checkAgentInput } from "../lib/server/commands/task-input";
import { appendLedger, taskStream } from "../lib/server/ledger/append-ledger";
import { inProcessPost } from "./bench/api";

export type EnqueueBench = {
  tasks: number;
  /** Tasks per second, each path into a fresh database. */
  perSec: { legacyOneAtATime: number; enqueueOneAtATime: number; enqueueMany: number };
  /** One-task POST /api/v1/tasks latency, ms. */
  post: {
    clients: number;
    requests: number;
    p50: number;
    p99: number;
    keyedP50: number;
    keyedP99: number;
  };
};

const SCHEMA = {
  type: "object",
  properties: { n: { type: "integer" } },
  required: ["n"],
  additionalProperties: false,
};

async function publish(pool: pg.Pool) {
  await pool.query(
    `insert into agent_catalog (name, input_schema, tools, published_by)
     values ('bench', $1, '[]', 'bench') on conflict (name) do nothing`,
    [JSON.stringify(SCHEMA)],
  );
}

/**
 * The enqueue as it was before enqueueTasks (git ee75167^: enqueue-task.ts), kept here only to
 * measure against: a transaction of the catalog read, the insert, the head lock and append,
 * and the notify, seven round trips.
 */
async function legacyEnqueue(pool: pg.Pool, input: unknown) {
  await withTransaction(pool, async (c) => {
    const checked = await checkAgentInput(c, "bench", input);
    if (!checked.ok) throw new Error(checked.message);
    const value = toJsonValue(input, "input");
    const { rows } = await c.query<{ id: string }>(
      `insert into tasks (agent, input, enqueue_key, run_at, policy, created_by)
       values ($1, $2, null, now(), null, $3) returning id`,
      ["bench", JSON.stringify(value), "library"],
    );
    const id = rows[0]?.id ?? "";
    await appendLedger(c, taskStream(id), {
      kind: "task.enqueued",
      actor: "library",
      taskId: id,
      data: { agent: "bench", input: value, key: null, policy: null },
    });
    await c.query("select pg_notify($1, $2)", [TASKS_CHANNEL, id]);
  });
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;

export async function benchEnqueue(
  cluster: Parameters<typeof createTestDatabaseFrom>[0],
  opts: { tasks: number; clients: number; posts: number },
): Promise<EnqueueBench> {
  const inFresh = async <T>(label: string, fn: (pool: pg.Pool) => Promise<T>): Promise<T> => {
    const db = await createTestDatabaseFrom(cluster, label);
    const pool = createPool(db.appUrl, { max: opts.clients + 2 });
    try {
      await publish(pool);
      return await fn(pool);
    } finally {
      await pool.end();
      await dropTestDatabase(cluster, db.name);
    }
  };
  const rate = async (label: string, run: (pool: pg.Pool) => Promise<void>) =>
    inFresh(label, async (pool) => {
      const start = performance.now();
      await run(pool);
      const seconds = (performance.now() - start) / 1000;
      const { rows } = await pool.query<{ n: number }>(
        "select count(*)::int as n from tasks t join ledger_entries l on l.task_id = t.id",
      );
      if (rows[0]?.n !== opts.tasks) throw new Error(`${label}: ${rows[0]?.n} of ${opts.tasks}`);
      return opts.tasks / seconds;
    });
  const inputs = Array.from({ length: opts.tasks }, (_, n) => ({ n }));
  const legacyOneAtATime = await rate("enq_legacy", async (pool) => {
    for (const input of inputs) await legacyEnqueue(pool, input);
  });
  const enqueueOneAtATime = await rate("enq_single", async (pool) => {
    for (const input of inputs) await enqueue(pool, { agent: "bench", input });
  });
  const many = await rate("enq_many", async (pool) => {
    await enqueueMany(
      pool,
      inputs.map((input) => ({ agent: "bench", input })),
    );
  });

  const post = await inFresh("enq_post", async (pool) => {
    const post = await inProcessPost(pool);
    const once = async (i: number, key?: string) => {
      const start = performance.now();
      await post({ agent: "bench", input: { n: i } }, key);
      return performance.now() - start;
    };
    const latencies = async (keyed: boolean) => {
      const out: number[] = [];
      let next = 0;
      await Promise.all(
        Array.from({ length: opts.clients }, async () => {
          while (next < opts.posts) {
            const i = next++;
            out.push(await once(i, keyed ? `bench-${i}` : undefined));
          }
        }),
      );
      return out.sort((a, b) => a - b);
    };
    await latencies(false); // warm-up: connections, prepared statements, the token cache
    const plain = await latencies(false);
    const keyed = await latencies(true);
    return {
      clients: opts.clients,
      requests: opts.posts,
      p50: quantile(plain, 0.5),
      p99: quantile(plain, 0.99),
      keyedP50: quantile(keyed, 0.5),
      keyedP99: quantile(keyed, 0.99),
    };
  });
  return {
    tasks: opts.tasks,
    perSec: { legacyOneAtATime, enqueueOneAtATime, enqueueMany: many },
    post,
  };
}

export function renderEnqueueBench(r: EnqueueBench): string {
  const row = (label: string, perSec: number) =>
    `| ${label} | ${Math.round(perSec).toLocaleString("en")} | ${(r.tasks / perSec).toFixed(2)} s | ${(perSec / r.perSec.legacyOneAtATime).toFixed(1)}× |`;
  const ms = (v: number) => `${v.toFixed(1)} ms`;
  return [
    `| ${r.tasks.toLocaleString("en")} tasks, one process | tasks/s | time | vs before |`,
    "| --- | --- | --- | --- |",
    row("before: enqueue one at a time (7 round trips)", r.perSec.legacyOneAtATime),
    row("enqueue one at a time (2 round trips)", r.perSec.enqueueOneAtATime),
    row("enqueueMany, one call", r.perSec.enqueueMany),
    "",
    `| POST /api/v1/tasks, one task, ${r.post.clients} clients, ${r.post.requests} requests | p50 | p99 |`,
    "| --- | --- | --- |",
    `| no Idempotency-Key | ${ms(r.post.p50)} | ${ms(r.post.p99)} |`,
    `| a new Idempotency-Key each | ${ms(r.post.keyedP50)} | ${ms(r.post.keyedP99)} |`,
  ].join("\n");
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      tasks: { type: "string", default: "10000" },
      clients: { type: "string", default: "16" },
      posts: { type: "string", default: "2000" },
    },
  });
  const { cluster, stop } = await startTestCluster(env().TEST_DATABASE_URL);
  try {
    const result = await benchEnqueue(cluster, {
      tasks: Number(values.tasks),
      clients: Number(values.clients),
      posts: Number(values.posts),
    });
    console.log(renderEnqueueBench(result));
  } finally {
    await stop();
  }
}
