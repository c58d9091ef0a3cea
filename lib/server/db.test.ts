// DATABASE_READ_URL against real PostgreSQL: the "replica" is a role on the same throwaway
// cluster that may only SELECT and whose sessions are read-only, as on a hot standby. A screen
// read that succeeds through it and a write that it refuses show which pool each side takes.
import { afterAll, describe, expect, it } from "vitest";
import { withTransaction } from "../../db/client";
import { setUpTestDatabase } from "../../db/testing/database";
import { createReadOnlyRole } from "../../db/testing/read-only-role";
import { testViewer } from "../auth/testing";
import { insertTask } from "./commands/enqueue-task";
import { readDeadLettersScreen } from "./queries/dead-letters-screen";
import { getApprovalsScreen } from "./queries/get-approvals-screen";
import { listPendingBulkActions } from "./queries/get-bulk-action";
import { getLedgerVerification } from "./queries/get-ledger-verification";
import { getOverview } from "./queries/get-overview";
import { getTaskScreen, taskScreenSearchSchema } from "./queries/get-task-screen";
import { countInbox } from "./queries/inbox-counts";
import { ledgerSearchSchema } from "./queries/ledger-search";
import { inboxSearchSchema, listInbox } from "./queries/list-inbox";
import { listLedgerEntries } from "./queries/list-ledger-entries";
import { listLedgerKinds } from "./queries/list-ledger-kinds";
import { listTasks } from "./queries/list-tasks";
import { explainWhy } from "./queries/why";
import { deadLetterSearchSchema } from "./review/dead-letter-filter";

const t = await setUpTestDatabase("read_replica");

const replica = await createReadOnlyRole(t.superUrl, t.name);
const reader = replica.role;

const { taskId } = await withTransaction(t.pool, (c) =>
  insertTask(c, { agent: "replica-demo", input: { n: 1 }, actor: "test" }),
);

// lib/env.ts reads the environment once: set it before lib/server/db.ts first asks.
const previousEnv = { ...process.env };
process.env.DATABASE_URL = t.appUrl;
process.env.DATABASE_READ_URL = replica.url;
const db = await import("./db");
const health = await import("../../app/api/health/route");

afterAll(async () => {
  process.env = previousEnv;
  await Promise.all([db.getPool().end(), db.getReadPool().end()]);
  await replica.drop();
});

const whoAmI = async (pool: { query: typeof t.pool.query }) =>
  (await pool.query<{ u: string }>("select current_user as u")).rows[0]?.u;

describe("DATABASE_READ_URL", () => {
  it("gives reads their own pool and keeps the primary for everything else", async () => {
    expect(db.readReplicaConfigured()).toBe(true);
    expect(await whoAmI(db.getReadPool())).toBe(reader);
    expect(await whoAmI(db.getPool())).toBe("agent_ledger_app");
  });

  it("serves a screen's queries through the replica", async () => {
    expect(db.wroteRecently("agent-ledger.session_token=abc")).toBe(false);
    const readers = db.screenReaders(false);
    expect(await whoAmI(readers.pool)).toBe(reader);
    const page = await listTasks(readers.db, testViewer("ops"), {});
    expect(page.tasks.map((task) => task.id)).toContain(taskId);
    const counts = await countInbox(readers.pool, testViewer("reviewer"));
    expect(counts.total).toBe(0);
  });

  it("runs every screen the replica serves through a role that may only read", async () => {
    const { db: rdb, pool } = db.screenReaders(false);
    const admin = testViewer("admin");
    const overview = await getOverview(pool, admin, { window: "24h" });
    expect(overview).toBeTruthy();
    const task = await getTaskScreen(
      rdb,
      pool,
      admin,
      taskScreenSearchSchema.parse({ id: taskId }),
    );
    expect(task?.detail.task.id).toBe(taskId);
    await getApprovalsScreen(rdb, pool, admin);
    await listInbox(pool, admin, inboxSearchSchema.parse({}));
    await readDeadLettersScreen(rdb, admin, deadLetterSearchSchema.parse({}));
    await listPendingBulkActions(rdb, admin);
    const ledger = await listLedgerEntries(rdb, admin, ledgerSearchSchema.parse({ taskId }));
    expect(ledger.entries.length).toBeGreaterThan(0);
    expect(await listLedgerKinds(rdb, admin)).toContain("task.enqueued");
    await getLedgerVerification(rdb, admin);
    const why = await explainWhy(rdb, admin, { by: "taskId", value: taskId, limit: 10 });
    expect(why).toBeTruthy();
  });

  it("refuses a write through the read pool, read-only session or not", async () => {
    const pool = db.getReadPool();
    await expect(
      pool.query("update tasks set attempts = attempts + 1 where id = $1", [taskId]),
    ).rejects.toMatchObject({ code: "25006" }); // read_only_sql_transaction, as on a standby
    const client = await pool.connect();
    try {
      await client.query("begin read write");
      await expect(
        client.query("update tasks set attempts = attempts + 1 where id = $1", [taskId]),
      ).rejects.toMatchObject({ code: "42501" }); // insufficient_privilege: only SELECT is granted
    } finally {
      await client.query("rollback");
      client.release();
    }
    const { rows } = await t.pool.query("select attempts from tasks where id = $1", [taskId]);
    expect(rows[0]).toEqual({ attempts: 0 });
  });

  it("reads the primary for a while after the person's own action (the cookie)", async () => {
    expect(db.wroteRecently(`x=1; ${db.WROTE_COOKIE}=1`)).toBe(true);
    const readers = db.screenReaders(true);
    expect(await whoAmI(readers.pool)).toBe("agent_ledger_app");
    const [row] = (await readers.db.execute<{ u: string }>("select current_user as u")).rows;
    expect(row?.u).toBe("agent_ledger_app");
  });

  it("reports the replica in health, and stays ready when the replica is down", async () => {
    const up = await health.GET(new Request("http://localhost/api/health"));
    expect(up.status).toBe(200);
    expect(await up.json()).toMatchObject({
      status: "ok",
      replica: { database: "up", standby: false, replayLagSeconds: null },
    });

    await t.superPool.query(`alter role ${reader} nologin`);
    await t.superPool.query(
      "select pg_terminate_backend(pid) from pg_stat_activity where usename = $1",
      [reader],
    );
    const down = await health.GET(new Request("http://localhost/api/health"));
    expect(down.status).toBe(200);
    const body = await down.json();
    expect(body).toMatchObject({ status: "ok", database: "up", replica: { database: "down" } });
    expect(body.replica.error).not.toContain(new URL(replica.url).password);
  });
});
