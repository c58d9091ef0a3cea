// POST /api/v1/tasks through its real route handler, in process (no HTTP server, so the figure
// is our code and the database, not sockets), against enqueueing with the library on the same
// database. Ratios: what authentication, parsing, the schema check and the Idempotency-Key
// contract cost on top of the enqueue itself.
import type pg from "pg";
import { withTransaction } from "../../db/client";
import { operator } from "../../lib/domain/access";
import { createApiToken } from "../../lib/server/commands/api-tokens";
import { insertTask } from "../../lib/server/commands/enqueue-task";

type Case = { label: string; perSec: number };

async function run(
  label: string,
  total: number,
  concurrency: number,
  op: (i: number) => Promise<void>,
): Promise<Case> {
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) await op(next++);
    }),
  );
  return { label, perSec: total / ((performance.now() - start) / 1000) };
}

/**
 * `POST /api/v1/tasks` through its real route handler in this process, with a token of its own
 * (tasks:enqueue) and the web process's pool set to `pool`; each call throws unless it is a 201.
 */
export async function inProcessPost(
  pool: pg.Pool,
): Promise<(body: unknown, key?: string) => Promise<void>> {
  // The web process's pool (lib/server/db.ts) is this one: env() was read before the database
  // existed, so hand the handler the pool directly.
  (globalThis as { __agentLedgerPool?: pg.Pool }).__agentLedgerPool = pool;
  const created = await createApiToken(pool, operator("bench"), {
    name: "bench",
    scopes: ["tasks:enqueue"],
  });
  if (!created.ok) throw new Error(created.message);
  const token = created.value.token;
  const { POST } = await import("../../app/api/v1/tasks/route");
  return async (body, key) => {
    const response = await POST(
      new Request("http://bench/api/v1/tasks", {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          ...(key ? { "idempotency-key": key } : {}),
        },
        body: JSON.stringify(body),
      }),
      { params: Promise.resolve({}) },
    );
    if (response.status !== 201) throw new Error(`${response.status} ${await response.text()}`);
  };
}

export async function benchApi(
  pool: pg.Pool,
  total: number,
  concurrency: number,
): Promise<(Case & { ratio: number })[]> {
  await pool.query(
    `insert into agent_catalog (name, input_schema, tools, published_by)
     values ('bench-agent', $1, '[]', 'bench') on conflict (name) do nothing`,
    [
      JSON.stringify({
        type: "object",
        properties: { n: { type: "integer" } },
        required: ["n"],
        additionalProperties: false,
      }),
    ],
  );
  const post = await inProcessPost(pool);
  const body = (i: number) => ({ agent: "bench-agent", input: { n: i } });
  await run("warm-up", 200, concurrency, (i) => post(body(i)));
  const baseline = await run("library enqueue (baseline)", total, concurrency, async (i) => {
    // The write alone, without the command's scope and schema checks: what they cost shows.
    await withTransaction(pool, (c) =>
      insertTask(c, { agent: "bench-agent", input: { n: i }, actor: "bench" }),
    );
  });
  const cases = [
    baseline,
    await run("POST /tasks", total, concurrency, (i) => post(body(i))),
    await run("POST /tasks, new Idempotency-Key", total, concurrency, (i) =>
      post(body(i), `bench-${i}`),
    ),
    await run("POST /tasks, replayed key", total, concurrency, () => post(body(0), "bench-0")),
  ];
  return cases.map((c) => ({ ...c, ratio: c.perSec / baseline.perSec }));
}
