// A bulk action's loose ends against a real database: the per-task entries it writes name it
// (and a single task's own button does not), so the timeline and /why say which bulk it was part
// of; a money bulk waiting for its second reviewer is withdrawn by its requester or an admin and
// by nobody else; the runner re-reads the people it acts for and stops, skipping what is left,
// when one of them may no longer act; the outcome view and the ledger show every member.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { setUpTestDatabase } from "../../../db/testing/database";
import { testViewer } from "../../auth/testing";
import { operator, principalOf } from "../../domain/access";
import { getBulkAction } from "../queries/get-bulk-action";
import { listLedgerEntries } from "../queries/list-ledger-entries";
import { listTaskTimeline } from "../queries/list-task-timeline";
import { explainWhy, whyQuerySchema } from "../queries/why";
import { confirmBulkAction } from "./bulk-confirm";
import { addUser, dbNow, publishMoneyAgent, stageDead } from "./bulk-fixtures";
import { requestBulkAction } from "./bulk-request";
import { drainBulkActions, runOneBulkMember } from "./bulk-run";
import { withdrawBulkAction } from "./bulk-withdraw";
import { rejectTask } from "./reject-task";
import { setUserDisabled, setUserRole } from "./users";

const t = await setUpTestDatabase("bulk_lifecycle");

const ann = principalOf(testViewer("reviewer", "ann@example.com"));
const bob = principalOf(testViewer("reviewer", "bob@example.com"));
const carl = principalOf(testViewer("reviewer", "carl@example.com"));
const admin = principalOf(testViewer("admin", "admin@example.com"));
const ops = principalOf(testViewer("ops"));
const viewer = testViewer("admin", "admin@example.com");
const users = {
  ann: await addUser(t.pool, "reviewer", "ann@example.com"),
  bob: await addUser(t.pool, "reviewer", "bob@example.com"),
  carl: await addUser(t.pool, "reviewer", "carl@example.com"),
  admin: await addUser(t.pool, "admin", "admin@example.com"),
};
const root = operator("test");

async function entries(taskIds: string[], kind: string) {
  const { rows } = await t.pool.query<{
    task_id: string;
    actor: string;
    data: { bulkId?: string };
  }>(
    "select task_id, actor, data from ledger_entries where task_id = any($1::uuid[]) and kind = $2 order by id",
    [taskIds, kind],
  );
  return rows;
}

async function bulkEntries(bulkId: string) {
  const { rows } = await t.pool.query<{
    kind: string;
    actor: string;
    data: Record<string, unknown>;
  }>("select kind, actor, data from ledger_entries where stream = $1 order by seq", [
    `bulk:${bulkId}`,
  ]);
  return rows;
}

const statuses = async (ids: string[]) =>
  (
    await t.pool.query<{ status: string }>(
      "select status from tasks where id = any($1::uuid[]) order by id",
      [ids],
    )
  ).rows.map((r) => r.status);

/** A money replay of `n` refunds frozen by `who`: it waits for a second reviewer. */
async function pendingMoneyBulk(agent: string, n: number, who = ann) {
  await publishMoneyAgent(t.pool, agent);
  const ids = await stageDead(t.pool, agent, n, { refund: true });
  const r = await requestBulkAction(t.pool, who, {
    bulkId: randomUUID(),
    action: "replay",
    stepName: "refund",
    selection: { kind: "filter", filter: { agent } },
    asOf: await dbNow(t.pool),
  });
  if (!r.ok || r.value.status !== "awaiting_second") throw new Error("not a pending money bulk");
  return { ids, bulkId: r.value.id };
}

describe("per-task entries carry the bulk", () => {
  it("names the bulk on every entry its per-task commands write, and the views show it", async () => {
    const { ids, bulkId } = await pendingMoneyBulk("tagged-money", 2);
    expect(await confirmBulkAction(t.pool, bob, { bulkId })).toMatchObject({ ok: true });
    expect(await drainBulkActions(t.pool, bulkId)).toBe(2);
    // The first reviewer's two-person request and the second's replay: both name the bulk.
    for (const kind of ["review.requested", "replay.requested"]) {
      const written = await entries(ids, kind);
      expect(written).toHaveLength(2);
      expect(written.every((e) => e.data.bulkId === bulkId)).toBe(true);
    }
    const [first] = ids;
    if (!first) throw new Error("no task");
    const timeline = await listTaskTimeline(t.db, viewer, first);
    const replay = timeline.entries.find((e) => e.kind === "replay.requested");
    expect(replay?.bulk).toEqual({ id: bulkId, requestedBy: ann.actor, confirmedBy: bob.actor });
    // The enqueue-era entries of the task are nobody's bulk.
    expect(timeline.entries.filter((e) => e.bulk === null).length).toBe(
      timeline.entries.length - 2,
    );
    const why = await explainWhy(t.db, viewer, whyQuerySchema.parse({ taskId: first }));
    const reviews = why.effects.flatMap((e) => e.reviews);
    expect(reviews.find((r) => r.action === "replayed")?.bulk).toEqual({
      id: bulkId,
      requestedBy: ann.actor,
      confirmedBy: bob.actor,
    });
  });

  it("leaves a single task's own action without a bulk", async () => {
    const [id] = await stageDead(t.pool, "single-agent", 1);
    if (!id) throw new Error("no task");
    expect(await rejectTask(t.pool, ann, { taskId: id, version: 1, reason: "dup" })).toMatchObject({
      ok: true,
    });
    const [rejected] = await entries([id], "review.rejected");
    expect(rejected?.data).not.toHaveProperty("bulkId");
    const timeline = await listTaskTimeline(t.db, viewer, id);
    expect(timeline.entries.every((e) => e.bulk === null)).toBe(true);
  });

  it("tells apart the same reviewer's own single action from their bulk's", async () => {
    const ids = await stageDead(t.pool, "self-agent", 2);
    const r = await requestBulkAction(t.pool, ann, {
      bulkId: randomUUID(),
      action: "reject",
      reason: "outage",
      selection: { kind: "filter", filter: { agent: "self-agent" } },
      asOf: await dbNow(t.pool),
    });
    if (!r.ok) throw new Error("not frozen");
    const [mine] = ids;
    if (!mine) throw new Error("no task");
    // Ann rejects one of them on its own page before the runner reaches it.
    await rejectTask(t.pool, ann, { taskId: mine, version: 1, reason: "looked at it myself" });
    await drainBulkActions(t.pool, r.value.id);
    const bulk = await getBulkAction(t.db, viewer, r.value.id);
    const member = bulk?.members.find((m) => m.taskId === mine);
    expect(member?.outcome).toBe("taken");
    expect(member?.detail).toContain(`taken by ${ann.actor}`);
    expect(bulk?.counts).toMatchObject({ done: 1, taken: 1 });
  });
});

describe("withdrawing a pending bulk", () => {
  it("lets its requester withdraw it; the members are skipped and nothing runs", async () => {
    const { ids, bulkId } = await pendingMoneyBulk("withdraw-money", 3);
    expect(await withdrawBulkAction(t.pool, bob, { bulkId })).toMatchObject({
      ok: false,
      code: "forbidden",
    });
    expect(await withdrawBulkAction(t.pool, ops, { bulkId })).toMatchObject({
      ok: false,
      code: "forbidden",
    });
    const before = await getBulkAction(t.db, testViewer("reviewer", "ann@example.com"), bulkId);
    expect(before?.mayWithdraw).toBe(true);
    expect(
      (await getBulkAction(t.db, testViewer("reviewer", "bob@example.com"), bulkId))?.mayWithdraw,
    ).toBe(false);

    const w = await withdrawBulkAction(t.pool, ann, { bulkId, reason: "wrong group" });
    expect(w).toEqual({
      ok: true,
      value: { id: bulkId, status: "withdrawn", withdrawnBy: ann.actor, skipped: 3 },
    });
    // A retried withdrawal answers the same; a confirmation now is refused and runs nothing.
    expect(await withdrawBulkAction(t.pool, ann, { bulkId })).toMatchObject({
      ok: true,
      value: { skipped: 3 },
    });
    expect(await confirmBulkAction(t.pool, bob, { bulkId })).toMatchObject({
      ok: false,
      code: "conflict",
      message: `${ann.actor} withdrew this bulk action`,
    });
    expect(await drainBulkActions(t.pool, bulkId)).toBe(0);
    expect(await statuses(ids)).toEqual(["dead", "dead", "dead"]);

    const bulk = await getBulkAction(t.db, viewer, bulkId);
    expect(bulk).toMatchObject({
      status: "withdrawn",
      endedBy: ann.actor,
      endReason: `withdrawn by ${ann.actor}: wrong group`,
      mayWithdraw: false,
      counts: { skipped: 3, pending: 0 },
    });
    const own = await bulkEntries(bulkId);
    expect(own.map((e) => e.kind)).toEqual(["bulk.requested", "bulk.withdrawn"]);
    expect(own[1]).toMatchObject({ actor: ann.actor, data: { bulkId, requestedBy: ann.actor } });
    expect([...((own[1]?.data.skipped as string[]) ?? [])].sort()).toEqual([...ids].sort());
  });

  it("lets an admin withdraw another reviewer's bulk, never one already confirmed", async () => {
    const pending = await pendingMoneyBulk("admin-withdraw-money", 1);
    expect(await withdrawBulkAction(t.pool, admin, { bulkId: pending.bulkId })).toMatchObject({
      ok: true,
      value: { withdrawnBy: admin.actor },
    });
    const confirmed = await pendingMoneyBulk("confirmed-money", 1);
    expect(await confirmBulkAction(t.pool, bob, { bulkId: confirmed.bulkId })).toMatchObject({
      ok: true,
    });
    expect(await withdrawBulkAction(t.pool, ann, { bulkId: confirmed.bulkId })).toMatchObject({
      ok: false,
      code: "conflict",
      message: `${bob.actor} already confirmed this bulk action: it can no longer be withdrawn`,
    });
    expect(await withdrawBulkAction(t.pool, ann, { bulkId: randomUUID() })).toMatchObject({
      ok: false,
      code: "not_found",
    });
  });
});

describe("the runner re-reads the people it acts for", () => {
  it("stops a bulk whose requester became ops between the request and the run", async () => {
    const ids = await stageDead(t.pool, "demoted-agent", 3);
    const r = await requestBulkAction(t.pool, carl, {
      bulkId: randomUUID(),
      action: "reject",
      reason: "outage",
      selection: { kind: "filter", filter: { agent: "demoted-agent" } },
      asOf: await dbNow(t.pool),
    });
    if (!r.ok) throw new Error("not frozen");
    // One member runs with Carl a reviewer; then an admin makes him ops.
    expect(await runOneBulkMember(t.pool, r.value.id)).toBe(true);
    expect(await setUserRole(t.pool, root, { userId: users.carl, role: "ops" })).toMatchObject({
      ok: true,
    });
    await drainBulkActions(t.pool, r.value.id);

    const bulk = await getBulkAction(t.db, viewer, r.value.id);
    expect(bulk).toMatchObject({
      status: "stopped",
      endedBy: "bulk-runner",
      counts: { done: 1, skipped: 2, pending: 0 },
    });
    const reason = `stopped before acting: ${carl.actor} may no longer do this (the ops role may not reject a task that is dead (needs approvals:decide))`;
    expect(bulk?.endReason).toBe(reason);
    expect(bulk?.members.filter((m) => m.outcome === "skipped").map((m) => m.detail)).toEqual([
      reason,
      reason,
    ]);
    // Only the member run before the change was rejected; the others are still dead.
    expect((await statuses(ids)).sort()).toEqual(["dead", "dead", "rejected"]);
    const own = await bulkEntries(r.value.id);
    expect(own.map((e) => e.kind)).toEqual([
      "bulk.requested",
      "bulk.member_finished",
      "bulk.stopped",
    ]);
    expect(own[2]).toMatchObject({
      actor: "bulk-runner",
      data: { reason, lapsed: carl.actor },
    });
    expect(own[2]?.data.skipped).toHaveLength(2);
  });

  it("stops a confirmed money bulk whose second reviewer was disabled before it ran", async () => {
    const { ids, bulkId } = await pendingMoneyBulk("disabled-money", 2);
    const dave = await addUser(t.pool, "reviewer", "dave@example.com");
    const daveP = principalOf(testViewer("reviewer", "dave@example.com"));
    expect(await confirmBulkAction(t.pool, daveP, { bulkId })).toMatchObject({ ok: true });
    expect(await setUserDisabled(t.pool, root, { userId: dave, disabled: true })).toMatchObject({
      ok: true,
    });
    expect(await drainBulkActions(t.pool, bulkId)).toBe(1);
    const bulk = await getBulkAction(t.db, viewer, bulkId);
    expect(bulk).toMatchObject({
      status: "stopped",
      endReason: `stopped before acting: ${daveP.actor} was disabled since the bulk action was confirmed`,
      counts: { skipped: 2 },
    });
    expect(await statuses(ids)).toEqual(["dead", "dead"]);
    // Not even the first reviewer's half was recorded on the tasks.
    expect(await entries(ids, "review.requested")).toEqual([]);
  });

  it("keeps running for a person whose new role still allows the action", async () => {
    const ids = await stageDead(t.pool, "promoted-agent", 2);
    const erin = await addUser(t.pool, "reviewer", "erin@example.com");
    const r = await requestBulkAction(
      t.pool,
      principalOf(testViewer("reviewer", "erin@example.com")),
      {
        bulkId: randomUUID(),
        action: "reject",
        reason: "outage",
        selection: { kind: "filter", filter: { agent: "promoted-agent" } },
        asOf: await dbNow(t.pool),
      },
    );
    if (!r.ok) throw new Error("not frozen");
    await setUserRole(t.pool, root, { userId: erin, role: "admin" });
    await drainBulkActions(t.pool, r.value.id);
    expect(await getBulkAction(t.db, viewer, r.value.id)).toMatchObject({
      status: "done",
      counts: { done: 2 },
    });
    expect(await statuses(ids)).toEqual(["rejected", "rejected"]);
  });
});

describe("outcomes and the ledger", () => {
  it("lists each member's outcome and shows the bulk's own entries in the ledger explorer", async () => {
    const ids = await stageDead(t.pool, "outcome-agent", 3);
    const asOf = await dbNow(t.pool);
    const [taken, refused] = ids;
    if (!taken || !refused) throw new Error("no tasks");
    const r = await requestBulkAction(t.pool, ann, {
      bulkId: randomUUID(),
      action: "reject",
      reason: "outage",
      selection: { kind: "ids", tasks: ids.map((taskId) => ({ taskId, version: 1 })) },
      asOf,
    });
    if (!r.ok) throw new Error("not frozen");
    // Bob takes one first; another leaves the dead state without a person (the worker).
    await rejectTask(t.pool, bob, { taskId: taken, version: 1, reason: "bob saw it" });
    await t.pool.query(
      "update tasks set status = 'queued', dead_reason = null, version = version + 1 where id = $1",
      [refused],
    );
    await drainBulkActions(t.pool, r.value.id);
    const bulk = await getBulkAction(t.db, viewer, r.value.id);
    const by = new Map(bulk?.members.map((m) => [m.taskId, m]));
    expect(by.get(taken)).toMatchObject({ outcome: "taken" });
    expect(by.get(taken)?.detail).toMatch(
      new RegExp(`^taken by ${bob.actor} \\(review.rejected at `),
    );
    expect(by.get(refused)).toMatchObject({ outcome: "refused" });
    expect(by.get(refused)?.detail).toContain("the task changed since you loaded it");
    expect(by.get(ids[2] ?? "")).toMatchObject({ outcome: "done", detail: "rejected" });

    // The ledger explorer finds the bulk's own stream by its id, with its members.
    const page = await listLedgerEntries(t.db, viewer, { q: r.value.id });
    expect(page.entries.map((e) => e.kind).sort()).toEqual(
      [
        "bulk.finished",
        "bulk.member_finished",
        "bulk.member_finished",
        "bulk.member_finished",
        "bulk.requested",
      ].sort(),
    );
    const requested = page.entries.find((e) => e.kind === "bulk.requested");
    // The frozen set in the list's order, each at the version the reviewer saw.
    const frozen = z
      .object({ members: z.array(z.object({ taskId: z.string(), version: z.number() })) })
      .parse(requested?.data).members;
    expect(requested?.data).toMatchObject({ bulkId: r.value.id });
    expect([...frozen].sort((a, b) => a.taskId.localeCompare(b.taskId))).toEqual(
      [...ids].sort().map((taskId) => ({ taskId, version: 1 })),
    );
    expect(
      page.entries
        .filter((e) => e.kind === "bulk.member_finished")
        .map((e) => e.taskId)
        .sort(),
    ).toEqual([...ids].sort());
    const kinds = await listLedgerEntries(t.db, viewer, { kind: ["bulk.*"] });
    expect(kinds.entries.some((e) => e.stream === `bulk:${r.value.id}`)).toBe(true);
  });
});
