// A worker on a schema it does not know refuses to start, before it publishes, registers or
// claims anything: behind (a migration missing) and ahead (one from a newer release).
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { SchemaVersionError } from "../../db/schema-version";
import { setUpTestDatabase } from "../../db/testing/database";
import { defineAgent } from "../../lib/sdk/define";
import { runtimeTestKit } from "./test-support";
import { startWorker } from "./worker";

const t = await setUpTestDatabase("schema_check");
const kit = runtimeTestKit(t.pool);

let ran = 0;
const agent = defineAgent({
  name: "schema-probe",
  input: z.object({}),
  tools: {},
  run: async () => {
    ran += 1;
    return null;
  },
});

async function refusedStart(): Promise<SchemaVersionError> {
  const err = await startWorker({ pool: t.pool, agents: [agent], concurrency: 1, log: () => {} })
    .then(async (w) => {
      await w.stop(100);
      return null;
    })
    .catch((e: unknown) => e);
  expect(err).toBeInstanceOf(SchemaVersionError);
  return err as SchemaVersionError;
}

async function nothingHappened(taskId: string) {
  expect(ran).toBe(0);
  expect((await kit.task(taskId)).status).toBe("queued");
  expect(await kit.kinds(taskId)).toEqual(["task.enqueued"]);
  const { rows } = await t.pool.query(
    "select (select count(*)::int from workers) as workers, (select count(*)::int from agent_catalog) as catalog",
  );
  expect(rows[0]).toEqual({ workers: 0, catalog: 0 });
}

describe("startWorker checks the schema version", () => {
  it("behind: refuses, says to migrate, and runs nothing", async () => {
    const taskId = await kit.enqueue("schema-probe", {});
    const [removed] = (
      await t.superPool.query<{ hash: string; created_at: string }>(
        `delete from drizzle.__drizzle_migrations
          where created_at = (select max(created_at) from drizzle.__drizzle_migrations)
          returning hash, created_at`,
      )
    ).rows;
    try {
      const err = await refusedStart();
      expect(err.check.state).toBe("behind");
      expect(err.message).toMatch(
        /^the database schema is at migration \d{4} \(.+\); this worker needs \d{4} \(.+\): run `agent-ledger migrate`$/,
      );
      await nothingHappened(taskId);
    } finally {
      await t.superPool.query(
        "insert into drizzle.__drizzle_migrations (hash, created_at) values ($1, $2)",
        [removed?.hash, removed?.created_at],
      );
    }
  });

  it("ahead: refuses, says to upgrade, and runs nothing", async () => {
    const taskId = await kit.enqueue("schema-probe", {});
    const { rows } = await t.superPool.query<{ id: number }>(
      `insert into drizzle.__drizzle_migrations (hash, created_at)
       select 'from-a-newer-release', max(created_at) + 1000 from drizzle.__drizzle_migrations
       returning id`,
    );
    try {
      const err = await refusedStart();
      expect(err.check.state).toBe("ahead");
      expect(err.message).toMatch(/^the database was migrated by a newer agent-ledger \(migration/);
      expect(err.message).toMatch(/: upgrade this worker$/);
      await nothingHappened(taskId);
    } finally {
      await t.superPool.query("delete from drizzle.__drizzle_migrations where id = $1", [
        rows[0]?.id,
      ]);
    }
  });

  it("current: the same worker starts and runs the queued tasks", async () => {
    const w = await startWorker({
      pool: t.pool,
      agents: [agent],
      concurrency: 2,
      pollMs: 50,
      log: () => {},
    });
    try {
      const { rows } = await t.pool.query<{ id: string }>("select id from tasks");
      for (const { id } of rows) await kit.settle(id);
      expect(ran).toBe(rows.length);
    } finally {
      await w.stop(1_000);
    }
  });
});
