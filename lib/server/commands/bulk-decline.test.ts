// A second reviewer declines a money bulk action that waits for them, against a real database:
// only someone who may confirm it may decline it, with a reason, only while it waits; the
// members are skipped with that reason, nothing runs, and the bulk's stream records who and why.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { setUpTestDatabase } from "../../../db/testing/database";
import { testViewer } from "../../auth/testing";
import { principalOf } from "../../domain/access";
import { getBulkAction } from "../queries/get-bulk-action";
import { confirmBulkAction } from "./bulk-confirm";
import { declineBulkAction } from "./bulk-decline";
import { addUser, dbNow, publishMoneyAgent, stageDead } from "./bulk-fixtures";
import { requestBulkAction } from "./bulk-request";
import { drainBulkActions } from "./bulk-run";
import { withdrawBulkAction } from "./bulk-withdraw";

const t = await setUpTestDatabase("bulk_decline");

const ann = principalOf(testViewer("reviewer", "ann@example.com"));
const bob = principalOf(testViewer("reviewer", "bob@example.com"));
const carl = principalOf(testViewer("reviewer", "carl@example.com"));
const ops = principalOf(testViewer("ops"));
await addUser(t.pool, "reviewer", "ann@example.com");
await addUser(t.pool, "reviewer", "bob@example.com");
await addUser(t.pool, "reviewer", "carl@example.com");

/** A money replay of `n` refunds frozen by Ann: it waits for a second reviewer. */
async function pendingMoneyBulk(agent: string, n: number) {
  await publishMoneyAgent(t.pool, agent);
  const ids = await stageDead(t.pool, agent, n, { refund: true });
  const r = await requestBulkAction(t.pool, ann, {
    bulkId: randomUUID(),
    action: "replay",
    stepName: "refund",
    reason: "payments 502 storm is over",
    selection: { kind: "filter", filter: { agent } },
    asOf: await dbNow(t.pool),
  });
  if (!r.ok || r.value.status !== "awaiting_second") throw new Error("not a pending money bulk");
  return { ids, bulkId: r.value.id };
}

const statuses = async (ids: string[]) =>
  (
    await t.pool.query<{ status: string }>("select status from tasks where id = any($1::uuid[])", [
      ids,
    ])
  ).rows.map((r) => r.status);

describe("declining a bulk action that waits for a second reviewer", () => {
  it("skips every member with the reason, runs nothing and records who declined and why", async () => {
    const { ids, bulkId } = await pendingMoneyBulk("decline-money", 3);
    expect(
      (await getBulkAction(t.db, testViewer("reviewer", "bob@example.com"), bulkId))?.mayConfirm,
    ).toBe(true);

    const d = await declineBulkAction(t.pool, bob, { bulkId, reason: "  amounts look doubled " });
    expect(d).toEqual({
      ok: true,
      value: { id: bulkId, status: "declined", declinedBy: bob.actor, skipped: 3 },
    });
    // Retried by the one who declined: the same answer; nobody confirms it afterwards.
    expect(await declineBulkAction(t.pool, bob, { bulkId, reason: "again" })).toMatchObject({
      ok: true,
      value: { status: "declined", skipped: 3 },
    });
    expect(await confirmBulkAction(t.pool, carl, { bulkId })).toEqual({
      ok: false,
      code: "conflict",
      message: `${bob.actor} declined this bulk action`,
    });
    expect(await withdrawBulkAction(t.pool, ann, { bulkId })).toMatchObject({
      ok: false,
      code: "conflict",
    });
    expect(await drainBulkActions(t.pool, bulkId)).toBe(0);
    expect(await statuses(ids)).toEqual(["dead", "dead", "dead"]);

    const bulk = await getBulkAction(t.db, testViewer("admin"), bulkId);
    expect(bulk).toMatchObject({
      status: "declined",
      endedBy: bob.actor,
      endReason: `declined by ${bob.actor}: amounts look doubled`,
      mayConfirm: false,
      counts: { skipped: 3, pending: 0 },
    });
    expect(bulk?.members.map((m) => m.detail)).toEqual(
      Array(3).fill(`declined by ${bob.actor}: amounts look doubled`),
    );
    const { rows } = await t.pool.query<{ kind: string; actor: string; data: unknown }>(
      "select kind, actor, data from ledger_entries where stream = $1 order by seq",
      [`bulk:${bulkId}`],
    );
    expect(rows.map((r) => r.kind)).toEqual(["bulk.requested", "bulk.declined"]);
    expect(rows[1]).toMatchObject({
      actor: bob.actor,
      data: {
        bulkId,
        requestedBy: ann.actor,
        declinedBy: bob.actor,
        declineReason: "amounts look doubled",
      },
    });
  });

  it("is refused to the one who froze it, to a role without the action, and without a reason", async () => {
    const { bulkId } = await pendingMoneyBulk("decline-refused", 1);
    expect(await declineBulkAction(t.pool, ann, { bulkId, reason: "changed my mind" })).toEqual({
      ok: false,
      code: "conflict",
      message:
        "a second, different reviewer must decide: you froze this set of 1 task (you may withdraw it)",
    });
    expect(await declineBulkAction(t.pool, ops, { bulkId, reason: "no" })).toMatchObject({
      ok: false,
      code: "forbidden",
    });
    expect(await declineBulkAction(t.pool, bob, { bulkId, reason: "   " })).toMatchObject({
      ok: false,
      code: "invalid",
    });
    expect(
      await declineBulkAction(t.pool, bob, { bulkId: randomUUID(), reason: "x" }),
    ).toMatchObject({ ok: false, code: "not_found" });
    expect((await getBulkAction(t.db, testViewer("admin"), bulkId))?.status).toBe(
      "awaiting_second",
    );
  });

  it("is refused once another reviewer confirmed it, naming them", async () => {
    const { bulkId } = await pendingMoneyBulk("decline-late", 2);
    expect(await confirmBulkAction(t.pool, carl, { bulkId })).toMatchObject({ ok: true });
    expect(await declineBulkAction(t.pool, bob, { bulkId, reason: "too late" })).toEqual({
      ok: false,
      code: "conflict",
      message: `${carl.actor} already confirmed this bulk action: it can no longer be declined`,
    });
  });

  it("lets one of two racing second reviewers decide: the other is told", async () => {
    const { bulkId } = await pendingMoneyBulk("decline-race", 2);
    const [confirmed, declined] = await Promise.all([
      confirmBulkAction(t.pool, carl, { bulkId }),
      declineBulkAction(t.pool, bob, { bulkId, reason: "wrong group" }),
    ]);
    expect([confirmed.ok, declined.ok].filter(Boolean)).toHaveLength(1);
    const bulk = await getBulkAction(t.db, testViewer("admin"), bulkId);
    expect(bulk?.status).toBe(confirmed.ok ? "running" : "declined");
  });
});
