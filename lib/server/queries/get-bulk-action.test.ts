// Reading bulk actions against a real database: the waiting ones come in a constant number of
// statements however many wait, each exactly as getBulkAction reads it on its own (its members,
// capped per bulk, its counts and whether this viewer may withdraw it), and nobody without
// tasks:read reads any.
import { randomUUID } from "node:crypto";
import type pg from "pg";
import { describe, expect, it } from "vitest";
import { createDb } from "../../../db/client";
import { setUpTestDatabase } from "../../../db/testing/database";
import { testTokenViewer, testViewer } from "../../auth/testing";
import { principalOf } from "../../domain/access";
import { confirmBulkAction } from "../commands/bulk-confirm";
import { addUser, dbNow, publishMoneyAgent, stageDead } from "../commands/bulk-fixtures";
import { requestBulkAction } from "../commands/bulk-request";
import { BULK_MEMBERS_SHOWN, getBulkAction, listPendingBulkActions } from "./get-bulk-action";

const t = await setUpTestDatabase("get_bulk_action");

const ann = principalOf(testViewer("reviewer", "ann@example.com"));
const bob = principalOf(testViewer("reviewer", "bob@example.com"));
const annViewer = testViewer("reviewer", "ann@example.com");
const bobViewer = testViewer("reviewer", "bob@example.com");
await addUser(t.pool, "reviewer", "ann@example.com");
await addUser(t.pool, "reviewer", "bob@example.com");

async function pendingMoneyBulk(agent: string, n: number, who = ann): Promise<string> {
  await publishMoneyAgent(t.pool, agent);
  await stageDead(t.pool, agent, n, { refund: true });
  const r = await requestBulkAction(t.pool, who, {
    bulkId: randomUUID(),
    action: "replay",
    stepName: "refund",
    selection: { kind: "filter", filter: { agent } },
    asOf: await dbNow(t.pool),
  });
  if (!r.ok || r.value.status !== "awaiting_second") throw new Error("not a pending money bulk");
  return r.value.id;
}

/** A drizzle database over t.pool that counts the statements sent through it. */
function countingDb(): { db: ReturnType<typeof createDb>; statements: () => number } {
  let n = 0;
  const pool = new Proxy(t.pool, {
    get(target, name, receiver) {
      if (name === "query") {
        return (...args: Parameters<pg.Pool["query"]>) => {
          n++;
          return (target.query as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      return Reflect.get(target, name, receiver);
    },
  });
  return { db: createDb(pool), statements: () => n };
}

describe("bulk actions waiting for a second reviewer", () => {
  it("are read in the same few statements however many wait, each as getBulkAction reads it", async () => {
    const first = await pendingMoneyBulk("pending-one", 2);
    const one = countingDb();
    const listedOne = await listPendingBulkActions(one.db, annViewer);
    expect(listedOne.map((b) => b.id)).toEqual([first]);

    const big = await pendingMoneyBulk("pending-big", BULK_MEMBERS_SHOWN + 2);
    const bobs = await pendingMoneyBulk("pending-bob", 3, bob);
    // One confirmed by a second reviewer no longer waits.
    const confirmed = await pendingMoneyBulk("pending-confirmed", 1);
    expect(await confirmBulkAction(t.pool, bob, { bulkId: confirmed })).toMatchObject({
      ok: true,
    });

    const many = countingDb();
    const listed = await listPendingBulkActions(many.db, annViewer);
    expect(listed.map((b) => b.id)).toEqual([first, big, bobs]);
    expect(one.statements()).toBeGreaterThan(0);
    expect(many.statements()).toBe(one.statements());
    expect(many.statements()).toBeLessThanOrEqual(3);

    // The same DTOs the bulk's own read gives, members and counts each its own.
    for (const b of listed) expect(b).toEqual(await getBulkAction(t.db, annViewer, b.id));
    const [, bigDto, bobDto] = listed;
    expect(bigDto?.members).toHaveLength(BULK_MEMBERS_SHOWN);
    expect(bigDto?.members.map((m) => m.position)).toEqual(
      [...(bigDto?.members ?? [])].map((m) => m.position).sort((a, b) => a - b),
    );
    expect(bigDto?.counts).toMatchObject({ pending: BULK_MEMBERS_SHOWN + 2 });
    expect(bobDto?.members).toHaveLength(3);
    expect(bobDto?.counts).toMatchObject({ pending: 3, done: 0 });
    // Withdrawing is for its requester: per viewer, as on its own page.
    expect(listed.map((b) => b.mayWithdraw)).toEqual([true, true, false]);
    expect((await listPendingBulkActions(t.db, bobViewer)).map((b) => b.mayWithdraw)).toEqual([
      false,
      false,
      true,
    ]);
  });

  it("are read by no one without tasks:read", async () => {
    await expect(listPendingBulkActions(t.db, null)).rejects.toThrow();
    await expect(
      listPendingBulkActions(t.db, testTokenViewer(["tasks:enqueue"], "enqueue-only")),
    ).rejects.toThrow();
  });
});
