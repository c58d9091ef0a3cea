// What the second reviewer reads on a bulk action's page, against a real database: the money
// its refunds would move summed per currency (from the refund tool's declared arguments), the
// same sums the first reviewer's dialog showed, the requester's reason and filter, the frozen
// set as dead-letter rows with the list's filter and pages, and one task's preview on demand.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { setUpTestDatabase } from "../../../db/testing/database";
import { testTokenViewer, testViewer } from "../../auth/testing";
import { principalOf } from "../../domain/access";
import { addUser, dbNow, publishMoneyAgent, stageDead } from "../commands/bulk-fixtures";
import { requestBulkAction } from "../commands/bulk-request";
import { rejectTask } from "../commands/reject-task";
import { getBulkAction } from "./get-bulk-action";
import { previewBulkMember } from "./get-bulk-action-member";
import { getBulkReview, listBulkMembers } from "./get-bulk-action-review";
import { DEAD_LETTERS_PAGE_SIZE } from "./list-dead-letter-tasks";
import { previewBulkAction } from "./preview-bulk-action";

const t = await setUpTestDatabase("bulk_review");

const annViewer = testViewer("reviewer", "ann@example.com");
const bobViewer = testViewer("reviewer", "bob@example.com");
const ann = principalOf(annViewer);
const bob = principalOf(bobViewer);
await addUser(t.pool, "reviewer", "ann@example.com");
await addUser(t.pool, "reviewer", "bob@example.com");

/** The i-th refund: odd ones in euros; amounts 10.00, 10.01, 10.02, … */
const money = (i: number) => ({ amountCents: 1000 + i, currency: i % 2 === 1 ? "eur" : "usd" });

async function freeze(agent: string, reason?: string) {
  const selection = { kind: "filter" as const, filter: { agent } };
  const dialog = await previewBulkAction(t.pool, annViewer, {
    action: "replay",
    selection,
    stepName: "refund",
  });
  const r = await requestBulkAction(t.pool, ann, {
    bulkId: randomUUID(),
    action: "replay",
    stepName: "refund",
    selection,
    asOf: await dbNow(t.pool),
    ...(reason ? { reason } : {}),
  });
  if (!r.ok) throw new Error(r.message);
  return { dialog, bulkId: r.value.id, preview: r.value.preview };
}

describe("the money a bulk replay of refunds would move", () => {
  it("is summed per currency from the declared arguments, the same in the dialog and the record", async () => {
    await publishMoneyAgent(t.pool, "sum-refund", { declared: true });
    await stageDead(t.pool, "sum-refund", 5, { refund: true, money });
    const { dialog, bulkId, preview } = await freeze("sum-refund", "payments 502 storm is over");
    const expected = {
      totals: [
        { currency: "usd", minor: 1000 + 1002 + 1004, effects: 3 },
        { currency: "eur", minor: 1001 + 1003, effects: 2 },
      ],
      unknown: 0,
    };
    expect(dialog.preview?.amounts).toEqual(expected);
    expect(preview?.amounts).toEqual(expected);

    // The second reviewer's page reads what was frozen: reason, filter and the same sums.
    const review = await getBulkReview(t.db, bobViewer, bulkId);
    expect(review).toEqual({
      reason: "payments 502 storm is over",
      stepName: "refund",
      selection: { kind: "filter", filter: { agent: "sum-refund" } },
      preview: expect.objectContaining({
        tasks: 5,
        effects: expect.objectContaining({ act: 5, money: 5 }),
        amounts: expected,
      }),
      moved: 0,
    });
    const bulk = await getBulkAction(t.db, bobViewer, bulkId);
    expect(bulk).toMatchObject({ status: "awaiting_second", mayConfirm: true, memberCount: 5 });
  });

  it("counts an amount it cannot read as unknown: a tool that says only `money: true`", async () => {
    await publishMoneyAgent(t.pool, "flag-refund");
    await stageDead(t.pool, "flag-refund", 2, { refund: true, money });
    const { preview } = await freeze("flag-refund");
    expect(preview?.amounts).toEqual({ totals: [], unknown: 2 });
    expect(preview?.effects.money).toBe(2);
  });
});

describe("the frozen set on the bulk's page", () => {
  it("lists its dead tasks with the dead-letter list's columns, filter and pages", async () => {
    await publishMoneyAgent(t.pool, "page-refund", { declared: true });
    const ids = await stageDead(t.pool, "page-refund", DEAD_LETTERS_PAGE_SIZE + 3, {
      refund: true,
      money,
    });
    // Another dead task of the same agent that is not a member: never listed.
    const { bulkId } = await freeze("page-refund");
    const [outsider] = await stageDead(t.pool, "page-refund", 1, { refund: true, money });

    const first = await listBulkMembers(t.db, bobViewer, bulkId, {});
    expect(first.matching).toBe(DEAD_LETTERS_PAGE_SIZE + 3);
    expect(first.tasks).toHaveLength(DEAD_LETTERS_PAGE_SIZE);
    expect(first.tasks[0]).toMatchObject({ agent: "page-refund", tool: "refund", attempts: 3 });
    expect(first.olderBefore).not.toBeNull();
    const [, at, id] = /^(.*)_(.*)$/.exec(first.olderBefore ?? "") ?? [];
    const second = await listBulkMembers(t.db, bobViewer, bulkId, {
      before: { at: at ?? "", id: id ?? "" },
    });
    expect(second.tasks).toHaveLength(3);
    const listed = [...first.tasks, ...second.tasks].map((x) => x.id);
    expect([...listed].sort()).toEqual([...ids].sort());
    expect(listed).not.toContain(outsider);
    // The dead-letter filter narrows it as it narrows the list.
    expect((await listBulkMembers(t.db, bobViewer, bulkId, { tool: "email" })).matching).toBe(0);

    // A member someone else acted on since: no longer listed, counted as moved.
    const [taken] = ids;
    if (!taken) throw new Error("no task");
    await rejectTask(t.pool, bob, { taskId: taken, version: 1, reason: "looked at it" });
    expect((await listBulkMembers(t.db, bobViewer, bulkId, {})).matching).toBe(
      DEAD_LETTERS_PAGE_SIZE + 2,
    );
    expect((await getBulkReview(t.db, bobViewer, bulkId))?.moved).toBe(1);
  });

  it("previews one member on demand, with its money, and nothing for a task outside the set", async () => {
    await publishMoneyAgent(t.pool, "one-refund", { declared: true });
    const [id] = await stageDead(t.pool, "one-refund", 1, { refund: true, money });
    if (!id) throw new Error("no task");
    const { bulkId } = await freeze("one-refund");
    const one = await previewBulkMember(t.pool, bobViewer, { bulkId, taskId: id });
    expect(one).toMatchObject({
      taskId: id,
      note: null,
      preview: {
        action: "replay",
        twoPerson: true,
        effects: [expect.objectContaining({ tool: "refund", outcome: "act", money: true })],
        amounts: { totals: [{ currency: "usd", minor: 1000, effects: 1 }], unknown: 0 },
      },
    });
    expect(await previewBulkMember(t.pool, bobViewer, { bulkId, taskId: randomUUID() })).toBeNull();
    await rejectTask(t.pool, bob, { taskId: id, version: 1, reason: "handled by hand" });
    expect(await previewBulkMember(t.pool, bobViewer, { bulkId, taskId: id })).toMatchObject({
      preview: null,
      note: "This task is rejected now: the bulk action will not act on it.",
    });
  });

  it("is read by no one without tasks:read", async () => {
    const nobody = testTokenViewer(["tasks:enqueue"], "enqueue-only");
    const bulkId = randomUUID();
    await expect(getBulkReview(t.db, nobody, bulkId)).rejects.toThrow();
    await expect(listBulkMembers(t.db, nobody, bulkId, {})).rejects.toThrow();
    await expect(
      previewBulkMember(t.pool, nobody, { bulkId, taskId: randomUUID() }),
    ).rejects.toThrow();
  });
});
