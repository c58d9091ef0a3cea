// The inbox against real PostgreSQL: each waiting task once, under its most specific kind,
// oldest first; "needs you" from the task-actions table and the two-person rule; counts that
// agree with the list. Rows are staged directly, each case stating what it needs.
import { randomUUID } from "node:crypto";
import { beforeEach, describe, expect, it } from "vitest";
import {
  OUTAGE_URL,
  REFUND_ERROR,
  stageAlertOutage,
  UNREACHABLE,
} from "../../../db/testing/alert-outage";
import { setUpTestDatabase } from "../../../db/testing/database";
import { testTokenViewer, testViewer } from "../../auth/testing";
import { principalOf } from "../../domain/access";
import { deriveEffectKey, payloadFingerprint } from "../../domain/hash";
import { addUser, dbNow, publishMoneyAgent, stageDead } from "../commands/bulk-fixtures";
import { requestBulkAction } from "../commands/bulk-request";
import { countInbox } from "./inbox-counts";
import { inboxSearchSchema, listInbox } from "./list-inbox";

const t = await setUpTestDatabase("inbox");
const alice = testViewer("reviewer", "alice@example.com");
const bob = testViewer("reviewer", "bob@example.com");
const ops = testViewer("ops");

// Each case starts from an empty inbox (tasks stay: the ledger may name them).
beforeEach(async () => {
  await t.ownerPool.query(
    "delete from review_requests; delete from approvals; delete from bulk_action_members; delete from bulk_actions",
  );
  await t.ownerPool.query(
    "update tasks set status = 'cancelled', dead_reason = null where status in ('dead', 'awaiting_approval')",
  );
});

/** A task in `status`, waiting since `minutesAgo`. */
async function task(
  status: "dead" | "awaiting_approval" | "queued" | "succeeded",
  minutesAgo: number,
  reason: string | null = status === "dead" ? "exhausted" : null,
): Promise<{ id: string; version: number }> {
  const { rows } = await t.pool.query<{ id: string; version: number }>(
    `insert into tasks (agent, input, status, dead_reason, last_error, status_changed_at, version, created_by)
     values ('payer', '{}', $1, $2, $3::jsonb, now() - make_interval(mins => $4), 3, 'test')
     returning id, version`,
    [
      status,
      reason,
      status === "dead" ? JSON.stringify({ message: "card declined" }) : null,
      minutesAgo,
    ],
  );
  const row = rows[0];
  if (!row) throw new Error("no task");
  return row;
}

async function approval(
  taskId: string,
  opts: { money?: boolean; firstBy?: string; minutesAgo?: number } = {},
) {
  const args = { amount: 50_000 };
  await t.pool.query(
    `insert into approvals (task_id, effect_key, fingerprint, tool, args, money, first_approved_by, first_approved_at)
     values ($1, $2, $3, 'refund', $4, $5, $6::text, case when $6::text is null then null else now() - make_interval(mins => $7) end)`,
    [
      taskId,
      deriveEffectKey(taskId, "refund", { n: 1 }),
      payloadFingerprint(args),
      JSON.stringify(args),
      opts.money ?? false,
      opts.firstBy ?? null,
      opts.minutesAgo ?? 0,
    ],
  );
}

async function request(
  taskId: string,
  version: number,
  by: string,
  minutesAgo: number,
  action: "replay" | "approve" = "replay",
) {
  await t.pool.query(
    `insert into review_requests (task_id, action, params, task_version, requested_by, requested_at)
     values ($1, $2, $3, $4, $5, now() - make_interval(mins => $6))`,
    [taskId, action, JSON.stringify({ fromStep: 2 }), version, by, minutesAgo],
  );
}

describe("listInbox", () => {
  it("is empty, with zero counts, when nothing waits", async () => {
    await task("queued", 5);
    await task("succeeded", 5);
    const inbox = await listInbox(t.pool, alice, {});
    expect(inbox.items).toEqual([]);
    expect(inbox.counts.total).toBe(0);
    expect(inbox.counts.forYouTotal).toBe(0);
  });

  it("lists each waiting task once under its most specific kind, oldest first", async () => {
    const deadLetter = await task("dead", 50);
    const unknown = await task("dead", 40, "outcome_unknown");
    const parked = await task("awaiting_approval", 30);
    await approval(parked.id);
    const requested = await task("dead", 60);
    await request(requested.id, requested.version, "user:alice@example.com", 20);
    const firstYes = await task("awaiting_approval", 70);
    await approval(firstYes.id, { money: true, firstBy: "user:alice@example.com", minutesAgo: 10 });
    await task("queued", 100);

    const inbox = await listInbox(t.pool, bob, {});
    expect(inbox.items.map((i) => [i.kind, i.taskId])).toEqual([
      ["dead_letter", deadLetter.id],
      ["unknown_outcome", unknown.id],
      ["approval", parked.id],
      ["confirmation", requested.id],
      ["confirmation", firstYes.id],
    ]);
    expect(inbox.items[0]).toMatchObject({
      lastError: "card declined",
      deadReason: "exhausted",
      // "You may" is the table's answer for this task: nothing to resolve or withdraw here.
      actions: ["resume", "reject", "replay", "correct"],
      needsYou: true,
    });
    // Cancel is an admin's stop, not triage: the inbox never offers it.
    expect(inbox.items[0]?.actions).not.toContain("cancel");
    expect(inbox.items[0]?.waitedSeconds).toBeGreaterThanOrEqual(50 * 60 - 5);
    expect(inbox.items[0]?.waitedSeconds).toBeLessThan(51 * 60);
    expect(inbox.items[2]).toMatchObject({
      tool: "refund",
      actions: expect.arrayContaining(["approve", "reject"]),
    });
    // A confirmation waits from the first reviewer's yes, not from when the task parked.
    expect(inbox.items[3]).toMatchObject({
      firstBy: "user:alice@example.com",
      request: { action: "replay", fromStep: 2 },
      needsYou: true,
    });
    expect(inbox.items[4]).toMatchObject({
      firstBy: "user:alice@example.com",
      request: { action: "approve", fromStep: null },
      tool: "refund",
      needsYou: true,
    });
    expect(inbox.counts).toEqual({
      waiting: { confirmation: 2, approval: 1, unknown_outcome: 1, dead_letter: 1, system: 0 },
      total: 5,
      forYou: { confirmation: 2, approval: 1, unknown_outcome: 1, dead_letter: 1, system: 0 },
      forYouTotal: 5,
      bulksWaiting: 0,
    });
    expect(inbox.matching).toBe(5);
  });

  it("the first reviewer is not needed for their own request; ops may act on nothing", async () => {
    const requested = await task("dead", 60);
    await request(requested.id, requested.version, "user:alice@example.com", 20);
    const other = await task("dead", 30);

    const mine = await listInbox(t.pool, alice, {});
    expect(mine.items.map((i) => [i.taskId, i.needsYou])).toEqual([
      [other.id, true],
      [requested.id, false],
    ]);
    expect(mine.counts.forYou).toMatchObject({ confirmation: 0, dead_letter: 1 });
    expect(mine.counts.forYouTotal).toBe(1);

    const read = await listInbox(t.pool, ops, {});
    expect(read.items.every((i) => !i.needsYou && i.actions.length === 0)).toBe(true);
    expect(read.counts.total).toBe(2);
    expect(read.counts.forYouTotal).toBe(0);
    expect(await countInbox(t.pool, ops)).toEqual(read.counts);
    expect(await countInbox(t.pool, alice)).toEqual(mine.counts);
  });

  it("a request made on an older version of the task no longer counts: it is a dead letter again", async () => {
    const dead = await task("dead", 60);
    await request(dead.id, dead.version - 1, "user:alice@example.com", 20);
    const inbox = await listInbox(t.pool, bob, {});
    expect(inbox.items).toEqual([expect.objectContaining({ kind: "dead_letter", firstBy: null })]);
    expect(inbox.counts.waiting).toMatchObject({ confirmation: 0, dead_letter: 1 });
  });

  it("lists a money bulk waiting for a second reviewer as one confirmation, for the others", async () => {
    const dead = await task("dead", 50);
    const insertBulk = (id: string, status: string) =>
      t.pool.query(
        `insert into bulk_actions (id, action, params, selection, as_of, status, two_person, member_count, requested_by, requested_principal)
         values ($1, 'replay', '{}', '{}', now(), $2, true, 300, 'user:alice@example.com', '{}')`,
        [id, status],
      );
    await insertBulk("00000000-0000-4000-8000-000000000001", "awaiting_second");
    await insertBulk("00000000-0000-4000-8000-000000000002", "withdrawn");

    const forBob = await listInbox(t.pool, bob, {});
    expect(forBob.bulks).toEqual([
      expect.objectContaining({
        id: "00000000-0000-4000-8000-000000000001",
        memberCount: 300,
        mine: false,
        needsYou: true,
      }),
    ]);
    expect(forBob.items.map((i) => i.taskId)).toEqual([dead.id]);
    expect(forBob.matching).toBe(1);
    expect(forBob.counts).toMatchObject({
      bulksWaiting: 1,
      waiting: { confirmation: 1, dead_letter: 1 },
      forYou: { confirmation: 1 },
      forYouTotal: 2,
    });
    expect(await countInbox(t.pool, bob)).toEqual(forBob.counts);

    // The one who froze it waits for someone else; ops may not replay, so it is not theirs either.
    const forAlice = await listInbox(t.pool, alice, {});
    expect(forAlice.bulks).toEqual([expect.objectContaining({ mine: true, needsYou: false })]);
    expect(forAlice.counts.forYou.confirmation).toBe(0);
    expect((await countInbox(t.pool, ops)).forYou.confirmation).toBe(0);
    // A task-only filter shows no bulks.
    expect((await listInbox(t.pool, bob, { kind: "dead_letter" })).bulks).toEqual([]);
  });

  it("a waiting money bulk's row sums what it would move per currency, as frozen", async () => {
    await addUser(t.pool, "reviewer", "alice@example.com");
    await publishMoneyAgent(t.pool, "inbox-refund", { declared: true });
    await stageDead(t.pool, "inbox-refund", 3, {
      refund: true,
      money: (i) => ({ amountCents: 1_000 + i, currency: i === 1 ? "eur" : "usd" }),
    });
    const frozen = await requestBulkAction(t.pool, principalOf(alice), {
      bulkId: randomUUID(),
      action: "replay",
      stepName: "refund",
      selection: { kind: "filter", filter: { agent: "inbox-refund" } },
      asOf: await dbNow(t.pool),
    });
    if (!frozen.ok) throw new Error(frozen.message);
    expect(frozen.value.status).toBe("awaiting_second");
    const expected = {
      totals: [
        { currency: "usd", minor: 1_000 + 1_002, effects: 2 },
        { currency: "eur", minor: 1_001, effects: 1 },
      ],
      unknown: 0,
    };
    // The same sums the requester confirmed and the bulk's page reads from the record.
    expect(frozen.value.preview?.amounts).toEqual(expected);
    const inbox = await listInbox(t.pool, bob, {});
    expect(inbox.bulks).toEqual([
      expect.objectContaining({ id: frozen.value.id, needsYou: true, amounts: expected }),
    ]);
    // A bulk that moves no money (or recorded no preview) has no amounts to show.
    await t.pool.query(
      `insert into bulk_actions (id, action, params, selection, as_of, status, two_person, member_count, requested_by, requested_principal)
       values ($1, 'replay', '{}', '{}', now(), 'awaiting_second', true, 2, 'user:alice@example.com', '{}')`,
      [randomUUID()],
    );
    expect((await listInbox(t.pool, bob, {})).bulks.map((b) => b.amounts)).toEqual([
      expected,
      null,
    ]);
  });

  it("filters by kind; the filter comes from the address through its schema", async () => {
    await task("dead", 50);
    const unknown = await task("dead", 40, "outcome_unknown");
    const parked = await task("awaiting_approval", 30);
    await approval(parked.id);

    const only = await listInbox(t.pool, bob, inboxSearchSchema.parse({ kind: "unknown_outcome" }));
    expect(only.items.map((i) => i.taskId)).toEqual([unknown.id]);
    expect(only.matching).toBe(1);
    expect(only.kind).toBe("unknown_outcome");
    expect(only.counts.total).toBe(3);
    expect(inboxSearchSchema.safeParse({ kind: "everything" }).success).toBe(false);
  });
});

describe("listInbox: what each task allows", () => {
  it("offers resolve and reconcile only with an unknown outcome, withdraw only with a request", async () => {
    const plain = await task("dead", 50);
    const unknown = await task("dead", 40, "outcome_unknown");
    const key = deriveEffectKey(unknown.id, "refund", { n: 1 });
    await t.pool.query(
      `insert into effects (key, task_id, step_seq, tool, intent, args, fingerprint, status, lease_expires_at)
       values ($1, $2, 1, 'refund', '{"n":1}', '{"n":1}', $3, 'started', now() - interval '1 minute')`,
      [key, unknown.id, payloadFingerprint({ n: 1 })],
    );
    const requested = await task("dead", 30);
    await request(requested.id, requested.version, "user:alice@example.com", 20);

    const inbox = await listInbox(t.pool, bob, {});
    const actionsOf = (id: string) => inbox.items.find((i) => i.taskId === id)?.actions;
    expect(actionsOf(plain.id)).toEqual(["resume", "reject", "replay", "correct"]);
    expect(actionsOf(unknown.id)).toEqual([
      "resume",
      "reject",
      "replay",
      "correct",
      "resolve",
      "reconcile",
    ]);
    expect(actionsOf(requested.id)).toEqual(["resume", "reject", "replay", "correct", "withdraw"]);
    // Ops read: the table gives them nothing, whatever the task holds.
    const read = await listInbox(t.pool, ops, {});
    expect(read.items.every((i) => i.actions.length === 0)).toBe(true);
  });
});

describe("listInbox paging", () => {
  it("pages past 100 by a cursor in the address, oldest first, each task once", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 250; i++) ids.push((await task("dead", 1_000 - i)).id);
    const seen: string[] = [];
    let after: string | null = null;
    const pages: number[] = [];
    do {
      const search = inboxSearchSchema.parse(after ? { after } : {});
      const page = await listInbox(t.pool, bob, search);
      expect(page.matching).toBe(250);
      expect(page.after).toBe(after);
      pages.push(page.items.length);
      seen.push(...page.items.map((i) => i.taskId));
      after = page.nextAfter;
    } while (after !== null && pages.length < 5);
    expect(pages).toEqual([100, 100, 50]);
    expect(seen).toEqual(ids);
    // A page position under a filter keeps the filter.
    const first = await listInbox(t.pool, bob, { kind: "dead_letter" });
    const second = await listInbox(
      t.pool,
      bob,
      inboxSearchSchema.parse({ kind: "dead_letter", after: first.nextAfter }),
    );
    expect(second.items[0]?.taskId).toBe(ids[100]);
    expect(inboxSearchSchema.safeParse({ after: "2026-01-01_nope" }).success).toBe(false);
  });
});

describe("listInbox: the product's own tasks apart", () => {
  it("with the alert sink unreachable and 60 dead refunds, the counts and groups are the refunds'", async () => {
    const outage = await stageAlertOutage(t.pool, { deliveries: 300, refunds: 60 });

    const inbox = await listInbox(t.pool, bob, {});
    expect(inbox.counts.total).toBe(60);
    expect(inbox.counts.forYouTotal).toBe(60);
    expect(inbox.counts.waiting).toMatchObject({ dead_letter: 60, system: 300 });
    expect(inbox.matching).toBe(60);
    expect(inbox.items).toHaveLength(60);
    expect(new Set(inbox.items.map((i) => i.agent))).toEqual(new Set(["refund"]));
    // The dead-letter groups: one group, the refunds'.
    expect(inbox.errorGroups).toEqual([
      expect.objectContaining({ reason: "exhausted", count: 60, message: REFUND_ERROR }),
    ]);
    // The failing destination is one line, its host only.
    expect(inbox.alerts).toEqual({
      undelivered: 300,
      destinations: [
        {
          ruleId: outage.ruleId,
          name: "demo dead letters",
          destination: "webhook",
          host: "127.0.0.1:4343",
          undelivered: 300,
          since: expect.any(String),
          lastError: UNREACHABLE,
        },
      ],
    });
    expect(JSON.stringify(inbox)).not.toContain("s3cret");
    expect(JSON.stringify(inbox)).not.toContain("T0KEN");
    expect(JSON.stringify(inbox)).not.toContain(OUTAGE_URL);
    // The sidebar counts the same.
    expect(await countInbox(t.pool, bob)).toEqual(inbox.counts);

    // Asked for, they are listed, paged like the rest.
    const system = await listInbox(t.pool, bob, inboxSearchSchema.parse({ kind: "system" }));
    expect(system.matching).toBe(300);
    expect(system.items).toHaveLength(100);
    expect(system.items.every((i) => i.kind === "system" && i.agent === "alert-delivery")).toBe(
      true,
    );
    expect(system.items.map((i) => i.taskId)).toEqual(outage.deliveryIds.slice(0, 100));
    expect(system.nextAfter).not.toBeNull();
    expect(system.errorGroups).toEqual([]);
    // And under the agents' kinds they never are.
    const deadOnly = await listInbox(t.pool, bob, { kind: "dead_letter" });
    expect(deadOnly.matching).toBe(60);
    expect(deadOnly.items.some((i) => i.agent === "alert-delivery")).toBe(false);
  });
});

describe("listInbox error groups", () => {
  /** A dead task with this error message. */
  async function deadWith(message: string, reason = "exhausted"): Promise<void> {
    await t.pool.query(
      `insert into tasks (agent, input, status, dead_reason, last_error, status_changed_at, version, created_by)
       values ('payer', '{}', 'dead', $1, $2::jsonb, now(), 3, 'test')`,
      [reason, JSON.stringify({ message })],
    );
  }

  it("offers the largest groups of dead letters sharing an error, not lone ones or unknown outcomes", async () => {
    for (const id of ["re_101", "re_202", "re_303"]) await deadWith(`refund ${id} failed: 502`);
    await deadWith("card declined");
    await deadWith("timeout after 30 s", "outcome_unknown");
    await deadWith("timeout after 31 s", "outcome_unknown");

    const inbox = await listInbox(t.pool, bob, {});
    expect(inbox.errorGroups).toEqual([
      {
        reason: "exhausted",
        fingerprint: "refund <id> failed: <n>",
        message: "refund re_101 failed: 502",
        count: 3,
        oldestAt: expect.any(String),
      },
    ]);
    // Under the dead-letter filter too; under any other, none.
    expect((await listInbox(t.pool, bob, { kind: "dead_letter" })).errorGroups).toHaveLength(1);
    expect((await listInbox(t.pool, bob, { kind: "approval" })).errorGroups).toEqual([]);
    // A reviewer may select a whole group to act on it; ops reads it only.
    expect(inbox.mayBulkTriage).toBe(true);
    expect((await listInbox(t.pool, ops, {})).mayBulkTriage).toBe(false);
  });
});

describe("listInbox authorization", () => {
  it("refuses without a viewer (401) and without tasks:read (403)", async () => {
    await expect(listInbox(t.pool, null, {})).rejects.toMatchObject({ status: 401 });
    await expect(
      countInbox(t.pool, testTokenViewer(["ledger:read"], "reader")),
    ).rejects.toMatchObject({ status: 403 });
  });
});
