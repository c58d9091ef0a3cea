// Bulk actions over dead letters against a real database: the set freezes at confirmation and
// excludes later dead letters, a key makes one bulk action, two reviewers on overlapping sets
// act on each task once and are told which the other took, an under-privileged principal is
// refused with nothing written, a money set waits for a second reviewer as a whole, and a
// runner that crashed after acting does not act again.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { setUpTestDatabase } from "../../../db/testing/database";
import { testViewer } from "../../auth/testing";
import { principalOf } from "../../domain/access";
import { getBulkAction } from "../queries/get-bulk-action";
import { confirmBulkAction } from "./bulk-confirm";
import { addUser, dbNow as dbNowOf, stageDead as stageDeadOf } from "./bulk-fixtures";
import { requestBulkAction } from "./bulk-request";
import { drainBulkActions } from "./bulk-run";
import { rejectTask } from "./reject-task";

const t = await setUpTestDatabase("bulk_actions");

const ann = principalOf(testViewer("reviewer", "ann@example.com"));
const bob = principalOf(testViewer("reviewer", "bob@example.com"));
const ops = principalOf(testViewer("ops"));
const viewer = testViewer("ops");

// The runner re-reads the people it acts for from the users table.
await addUser(t.pool, "reviewer", "ann@example.com");
await addUser(t.pool, "reviewer", "bob@example.com");
await addUser(t.pool, "admin", "admin@example.com");

const dbNow = () => dbNowOf(t.pool);
const stageDead = (agent: string, n: number, opts: { refund?: boolean; message?: string } = {}) =>
  stageDeadOf(t.pool, agent, n, opts);

const count = async (sql: string, params: unknown[] = []) =>
  Number((await t.pool.query<{ n: string }>(sql, params)).rows[0]?.n ?? 0);

describe("bulk actions", () => {
  it("freezes only tasks already dead when the dialog opened", async () => {
    const early = await stageDead("freeze-agent", 3);
    const asOf = await dbNow();
    const late = await stageDead("freeze-agent", 2);
    const r = await requestBulkAction(t.pool, ann, {
      bulkId: randomUUID(),
      action: "reject",
      reason: "outage",
      selection: { kind: "filter", filter: { agent: "freeze-agent" } },
      asOf,
    });
    expect(r).toMatchObject({ ok: true, value: { memberCount: 3, status: "running" } });
    if (!r.ok) return;
    await drainBulkActions(t.pool, r.value.id);
    const bulk = await getBulkAction(t.db, viewer, r.value.id);
    expect(bulk?.members.map((m) => m.taskId).sort()).toEqual([...early].sort());
    expect(bulk?.counts).toMatchObject({ done: 3, pending: 0 });
    expect(bulk?.status).toBe("done");
    const stillDead = await count(
      "select count(*) as n from tasks where id = any($1::uuid[]) and status = 'dead'",
      [late],
    );
    expect(stillDead).toBe(2);
    // The ledger names the members and, per task, the bulk.
    const requested = await t.pool.query<{ data: { members: { taskId: string }[] } }>(
      "select data from ledger_entries where stream = $1 and kind = 'bulk.requested'",
      [`bulk:${r.value.id}`],
    );
    expect(requested.rows[0]?.data.members.map((m) => m.taskId).sort()).toEqual([...early].sort());
    expect(
      await count(
        "select count(*) as n from ledger_entries where stream = $1 and kind = 'bulk.member_finished'",
        [`bulk:${r.value.id}`],
      ),
    ).toBe(3);
  });

  it("makes one bulk action of one key, however often it is sent", async () => {
    const ids = await stageDead("key-agent", 2);
    const input = {
      bulkId: randomUUID(),
      action: "cancel" as const,
      selection: { kind: "ids" as const, tasks: ids.map((taskId) => ({ taskId, version: 1 })) },
      asOf: await dbNow(),
    };
    const admin = principalOf(testViewer("admin"));
    const [a, b] = await Promise.all([
      requestBulkAction(t.pool, admin, input),
      requestBulkAction(t.pool, admin, input),
    ]);
    expect(a.ok && b.ok).toBe(true);
    if (!a.ok || !b.ok) return;
    expect(a.value.id).toBe(b.value.id);
    expect([a.value.repeated, b.value.repeated].sort()).toEqual([false, true]);
    expect(
      await count("select count(*) as n from bulk_actions where id = $1", [input.bulkId]),
    ).toBe(1);
    expect(
      await count("select count(*) as n from bulk_action_members where bulk_id = $1", [
        input.bulkId,
      ]),
    ).toBe(2);
    // Another person cannot reuse the key.
    const other = await requestBulkAction(
      t.pool,
      principalOf(testViewer("admin", "eve@example.com")),
      input,
    );
    expect(other).toMatchObject({ ok: false, code: "conflict" });
  });

  it("acts on each task of overlapping sets once and says which the other reviewer took", async () => {
    const ids = await stageDead("overlap-agent", 9);
    const asOf = await dbNow();
    const pick = (from: number, to: number) => ({
      kind: "ids" as const,
      tasks: ids.slice(from, to).map((taskId) => ({ taskId, version: 1 })),
    });
    const annBulk = await requestBulkAction(t.pool, ann, {
      bulkId: randomUUID(),
      action: "reject",
      reason: "ann: duplicate orders",
      selection: pick(0, 6),
      asOf,
    });
    const bobBulk = await requestBulkAction(t.pool, bob, {
      bulkId: randomUUID(),
      action: "reject",
      reason: "bob: duplicate orders",
      selection: pick(3, 9),
      asOf,
    });
    if (!annBulk.ok || !bobBulk.ok) throw new Error("bulk not frozen");
    await Promise.all([
      drainBulkActions(t.pool, annBulk.value.id),
      drainBulkActions(t.pool, bobBulk.value.id),
    ]);
    const rejected = await t.pool.query<{ task_id: string; n: number; actor: string }>(
      `select task_id, count(*) as n, min(actor) as actor from ledger_entries
       where task_id = any($1::uuid[]) and kind = 'review.rejected' group by task_id`,
      [ids],
    );
    expect(rejected.rows).toHaveLength(9);
    expect(rejected.rows.every((r) => Number(r.n) === 1)).toBe(true);
    const annView = await getBulkAction(t.db, viewer, annBulk.value.id);
    const bobView = await getBulkAction(t.db, viewer, bobBulk.value.id);
    const by = new Map(rejected.rows.map((r) => [r.task_id, r.actor]));
    for (const [view, me, other] of [
      [annView, ann.actor, bob.actor],
      [bobView, bob.actor, ann.actor],
    ] as const) {
      for (const m of view?.members ?? []) {
        if (by.get(m.taskId) === me) expect(m.outcome).toBe("done");
        else {
          expect(m.outcome).toBe("taken");
          expect(m.detail).toContain(`taken by ${other}`);
        }
      }
    }
    expect((annView?.counts.taken ?? 0) + (bobView?.counts.taken ?? 0)).toBe(3);
  });

  it("refuses an under-privileged principal and writes nothing", async () => {
    await stageDead("refused-agent", 2);
    const before = await count("select count(*) as n from ledger_entries");
    const bulkId = randomUUID();
    const r = await requestBulkAction(t.pool, ops, {
      bulkId,
      action: "replay",
      stepName: null,
      selection: { kind: "filter", filter: { agent: "refused-agent" } },
      asOf: await dbNow(),
    });
    expect(r).toMatchObject({ ok: false, code: "forbidden" });
    expect(await count("select count(*) as n from bulk_actions where id = $1", [bulkId])).toBe(0);
    expect(await count("select count(*) as n from ledger_entries")).toBe(before);
  });

  it("waits for a second, different reviewer when a member's replay moves money", async () => {
    await t.pool.query(
      `insert into agent_catalog (name, input_schema, tools, published_by)
       values ('money-agent', '{}', '[{"name":"refund","money":true}]', 'test')`,
    );
    const ids = await stageDead("money-agent", 3, { refund: true });
    const r = await requestBulkAction(t.pool, ann, {
      bulkId: randomUUID(),
      action: "replay",
      stepName: "refund",
      selection: { kind: "filter", filter: { agent: "money-agent" } },
      asOf: await dbNow(),
    });
    expect(r).toMatchObject({ ok: true, value: { status: "awaiting_second", twoPerson: true } });
    if (!r.ok) return;
    expect(r.value.preview?.effects).toMatchObject({ act: 3, money: 3 });
    // Nothing runs before the second reviewer.
    expect(await drainBulkActions(t.pool, r.value.id)).toBe(0);
    expect(await confirmBulkAction(t.pool, ann, { bulkId: r.value.id })).toMatchObject({
      ok: false,
      code: "conflict",
    });
    expect(await confirmBulkAction(t.pool, ops, { bulkId: r.value.id })).toMatchObject({
      ok: false,
      code: "forbidden",
    });
    expect(await confirmBulkAction(t.pool, bob, { bulkId: r.value.id })).toMatchObject({
      ok: true,
      value: { status: "running", confirmedBy: bob.actor },
    });
    expect(await drainBulkActions(t.pool, r.value.id)).toBe(3);
    const queued = await count(
      "select count(*) as n from tasks where id = any($1::uuid[]) and status = 'queued'",
      [ids],
    );
    expect(queued).toBe(3);
    const replays = await t.pool.query<{
      actor: string;
      data: { twoPerson?: { requestedBy: string } };
    }>(
      "select actor, data from ledger_entries where task_id = any($1::uuid[]) and kind = 'replay.requested'",
      [ids],
    );
    expect(replays.rows).toHaveLength(3);
    expect(
      replays.rows.every(
        (e) => e.actor === bob.actor && e.data.twoPerson?.requestedBy === ann.actor,
      ),
    ).toBe(true);
  });

  it("does not act again on a member whose outcome a crash left unrecorded", async () => {
    const ids = await stageDead("crash-agent", 3);
    const r = await requestBulkAction(t.pool, ann, {
      bulkId: randomUUID(),
      action: "reject",
      reason: "outage",
      selection: { kind: "filter", filter: { agent: "crash-agent" } },
      asOf: await dbNow(),
    });
    if (!r.ok) throw new Error("bulk not frozen");
    // The runner acted on one task and crashed before recording it.
    const [first] = ids;
    if (!first) throw new Error("no task");
    await rejectTask(t.pool, ann, {
      taskId: first,
      version: 1,
      reason: "outage",
      bulkId: r.value.id,
    });
    await drainBulkActions(t.pool, r.value.id);
    const bulk = await getBulkAction(t.db, viewer, r.value.id);
    expect(bulk?.counts).toMatchObject({ done: 3, taken: 0 });
    expect(
      await count(
        "select count(*) as n from ledger_entries where task_id = any($1::uuid[]) and kind = 'review.rejected'",
        [ids],
      ),
    ).toBe(3);
  });
});
