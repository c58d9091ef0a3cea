import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { withTransaction } from "../../../db/client";
import { setUpTestDatabase } from "../../../db/testing/database";
import { testTokenViewer, testViewer } from "../../auth/testing";
import { AuthError } from "../../domain/access";
import { appendLedger, taskStream } from "../ledger/append-ledger";
import { getTaskDetail, taskIdSchema } from "./get-task-detail";
import { TASK_TIMELINE_PAGE } from "./list-task-timeline";
import { HIDDEN_PAYLOAD } from "./payloads";

const t = await setUpTestDatabase("task-detail");
const ops = testViewer("ops");

/** Effect keys are unique across tasks, so every story gets its own. */
const newKey = () => randomBytes(32).toString("hex");

async function insertTask(status: string, deadReason: string | null = null): Promise<string> {
  const { rows } = await t.pool.query<{ id: string }>(
    `insert into tasks (agent, input, status, dead_reason, attempts, cost, version, last_error, policy, enqueue_key, created_by)
     values ('refund', $1, $2, $3, 2, 0.25, 4, $4, $5, $6, 'api:ops')
     returning id`,
    [
      JSON.stringify({ orderId: "ord_1", amountCents: 48_000, note: "<b>bold</b>" }),
      status,
      deadReason,
      JSON.stringify({ name: "Error", message: "payments API 500: boom" }),
      JSON.stringify({ maxAttempts: 2 }),
      `key-${Math.random()}`,
    ],
  );
  const id = rows[0]?.id;
  if (!id) throw new Error("no task");
  return id;
}

/** A refund task as the runtime leaves it after one keyed refund and one unknown outcome. */
async function storyTask(status = "dead", deadReason: string | null = "outcome_unknown") {
  const id = await insertTask(status, deadReason);
  const [refundKey, mailKey, liveKey, failedKey] = [newKey(), newKey(), newKey(), newKey()];
  await t.pool.query(
    `insert into steps (task_id, seq, kind, name, status, result, effect_key, attempt, completed_at, started_at)
     values ($1, 1, 'step', 'look-up-order', 'completed', '{"paymentIntent":"pi_1"}', null, 1, now(), now() - interval '3 s'),
            ($1, 2, 'tool', 'refund', 'completed', '{"refundId":"re_1","cardLast4":"4242"}', $2, 1, now(), now() - interval '2 s'),
            ($1, 3, 'model', 'model', 'started', null, null, 2, null, now() - interval '1 s')`,
    [id, refundKey],
  );
  await t.pool.query(
    `insert into effects (key, task_id, step_seq, tool, intent, args, fingerprint, status, lease_owner, lease_expires_at, result, error, attempts, completed_at)
     values ($2, $1, 2, 'refund', '{"orderId":"ord_1"}', '{"orderId":"ord_1","amountCents":48000}', $2, 'succeeded', null, null, '{"refundId":"re_1","cardLast4":"4242"}', null, 1, now()),
            ($3, $1, 4, 'send_email', '{}', '{"to":"a@example.com"}', $3, 'started', 'w1', now() - interval '1 minute', null, null, 2, null),
            ($4, $1, 5, 'send_email', '{}', '{}', $4, 'started', 'w2', now() + interval '1 minute', null, null, 1, null),
            ($5, $1, 6, 'send_email', '{}', '{}', $5, 'failed', null, null, null, '{"name":"EffectNotPerformedError","message":"SMTP refused"}', 1, null)`,
    [id, refundKey, mailKey, liveKey, failedKey],
  );
  await t.pool.query(
    `insert into approvals (task_id, effect_key, fingerprint, tool, args, status, decided_by, decided_at, reason, used_at, requested_at)
     values ($1, $2, $2, 'refund', '{"amountCents":48000}', 'approved', 'rita@example.com', now(), 'checked', now(), now() - interval '1 hour'),
            ($1, $3, $3, 'refund', '{"amountCents":99000}', 'pending', null, null, null, null, now())`,
    [id, refundKey, newKey()],
  );
  await withTransaction(t.pool, (c) =>
    appendLedger(c, taskStream(id), [
      { kind: "task.enqueued", actor: "api:ops", taskId: id, data: { agent: "refund" } },
      { kind: "attempt.started", actor: "worker:w1", taskId: id, data: { attempt: 1 } },
      {
        kind: "effect.succeeded",
        actor: "worker:w1",
        taskId: id,
        key: refundKey,
        // What the tool's `sensitive` paths let into the ledger.
        data: { tool: "refund", result: { refundId: "re_1", cardLast4: "[redacted]" } },
      },
      {
        kind: "task.dead_lettered",
        actor: "worker:w1",
        taskId: id,
        data: { reason: "outcome_unknown" },
      },
    ]),
  );
  return { id, refundKey, mailKey, liveKey, failedKey };
}

describe("taskIdSchema", () => {
  it("accepts UUIDs in any case and lower-cases them; rejects anything else", () => {
    expect(taskIdSchema.parse("0B6F1F0E-6A43-4D6B-9E83-1F2B3C4D5E6F")).toBe(
      "0b6f1f0e-6a43-4d6b-9e83-1f2b3c4d5e6f",
    );
    for (const bad of [
      "abc",
      "0b6f1f0e6a434d6b9e831f2b3c4d5e6f",
      "0b6f1f0e-6a43-4d6b-9e83-1f2b3c4d5e6",
      "0b6f1f0e-6a43-4d6b-9e83-1f2b3c4d5e6g",
      "' or 1=1 --",
      "",
    ]) {
      expect(taskIdSchema.safeParse(bad).success, bad).toBe(false);
    }
  });
});

describe("getTaskDetail", () => {
  it("returns null for a task that does not exist", async () => {
    expect(await getTaskDetail(t.db, ops, "0b6f1f0e-6a43-4d6b-9e83-1f2b3c4d5e6f")).toBeNull();
  });

  it("tells the task's story: header, journal, effects, approvals and the ledger in order", async () => {
    const { id, refundKey, mailKey, liveKey, failedKey } = await storyTask();
    const d = await getTaskDetail(t.db, ops, id);
    if (!d) throw new Error("task not found");

    expect(d.task).toMatchObject({
      id,
      agent: "refund",
      status: "dead",
      deadReason: "outcome_unknown",
      attempts: 2,
      version: 4,
      cost: 0.25,
      createdBy: "api:ops",
      policy: { maxAttempts: 2 },
      input: { orderId: "ord_1", amountCents: 48_000, note: "<b>bold</b>" },
      result: null,
      lastErrorMessage: "payments API 500: boom",
    });
    expect(d.task.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

    expect(d.steps.map((s) => [s.seq, s.kind, s.name, s.status, s.effectKey])).toEqual([
      [1, "step", "look-up-order", "completed", null],
      [2, "tool", "refund", "completed", refundKey],
      [3, "model", "model", "started", null],
    ]);
    expect(d.steps[0]?.result).toEqual({ paymentIntent: "pi_1" });
    // A tool step shows the ledger's redacted copy of the result, not the raw journal.
    expect(d.steps[1]?.result).toEqual({ refundId: "re_1", cardLast4: "[redacted]" });
    expect(d.steps[2]?.completedAt).toBeNull();

    expect(d.effects.map((e) => [e.stepSeq, e.key, e.status, e.state])).toEqual([
      [2, refundKey, "succeeded", "succeeded"],
      [4, mailKey, "started", "outcome_unknown"],
      [5, liveKey, "started", "in_flight"],
      [6, failedKey, "failed", "failed"],
    ]);
    expect(d.effects[0]).toMatchObject({
      tool: "refund",
      fingerprint: refundKey,
      args: { orderId: "ord_1", amountCents: 48_000 },
      result: { refundId: "re_1", cardLast4: "[redacted]" },
      error: null,
    });
    expect(d.effects[3]?.error).toEqual({
      name: "EffectNotPerformedError",
      message: "SMTP refused",
    });
    expect(d.effects[1]).toMatchObject({ attempts: 2, leaseOwner: "w1", result: null });

    expect(d.approvals.map((a) => [a.status, a.decidedBy, a.args])).toEqual([
      ["approved", "rita@example.com", { amountCents: 48_000 }],
      ["pending", null, { amountCents: 99_000 }],
    ]);
    expect(d.approvals[0]?.usedAt).not.toBeNull();

    expect(d.timeline.total).toBe(4);
    expect(d.timeline.gap).toBeNull();
    expect(d.timeline.entries.map((e) => [e.seq, e.kind])).toEqual([
      [1, "task.enqueued"],
      [2, "attempt.started"],
      [3, "effect.succeeded"],
      [4, "task.dead_lettered"],
    ]);
    expect(d.timeline.entries[2]).toMatchObject({ actor: "worker:w1", key: refundKey });
    expect(d.timeline.entries[3]?.data).toEqual({ reason: "outcome_unknown" });

    expect(d.replay?.fromStep).toBe(1);
    expect(d.replay?.rerun.map((s) => s.seq)).toEqual([1, 2, 3]);
    expect(d.replay?.effects.map((e) => [e.step, e.outcome, e.mayChange])).toEqual([
      [2, "dedupe", true],
      [4, "outcome_unknown", true],
      [5, "in_flight", true],
      [6, "act", true],
    ]);
  });

  it("keeps other tasks' rows out", async () => {
    const a = await storyTask();
    const b = await insertTask("queued");
    const d = await getTaskDetail(t.db, ops, b);
    expect(d?.steps).toEqual([]);
    expect(d?.effects).toEqual([]);
    expect(d?.approvals).toEqual([]);
    expect(d?.timeline).toEqual({
      entries: [],
      total: 0,
      gap: null,
      window: null,
      payloadsHidden: false,
    });
    expect((await getTaskDetail(t.db, ops, a.id))?.effects).toHaveLength(4);
  });

  it("previews a replay only where a reviewer could replay", async () => {
    for (const [status, reason, replayable] of [
      ["dead", "exhausted", true],
      ["awaiting_approval", null, true],
      ["succeeded", null, false],
      ["queued", null, false],
      ["rejected", null, false],
    ] as const) {
      const { id } = await storyTask(status, reason);
      const d = await getTaskDetail(t.db, ops, id);
      expect(d?.replay !== null, status).toBe(replayable);
    }
  });

  it("shows the latest recorded result, e.g. a reviewer's 'it happened' after an unknown outcome", async () => {
    const { id, mailKey } = await storyTask();
    await t.pool.query(
      "update effects set status = 'succeeded', result = '{\"messageId\":\"raw\"}', lease_owner = null, lease_expires_at = null, completed_at = now() where key = $1",
      [mailKey],
    );
    await withTransaction(t.pool, (c) =>
      appendLedger(c, taskStream(id), {
        kind: "outcome.resolved",
        actor: "rita@example.com",
        taskId: id,
        key: mailKey,
        data: { happened: true, result: { messageId: "<m1@example.com>" } },
      }),
    );
    const d = await getTaskDetail(t.db, ops, id);
    const mail = d?.effects.find((e) => e.key === mailKey);
    expect(mail).toMatchObject({ state: "succeeded", result: { messageId: "<m1@example.com>" } });
  });

  it("reads the window of the ledger the address asks for", async () => {
    const id = await insertTask("succeeded");
    await withTransaction(t.pool, (c) =>
      appendLedger(
        c,
        taskStream(id),
        Array.from({ length: TASK_TIMELINE_PAGE + 10 }, (_, i) => ({
          kind: "note.added",
          actor: "t",
          taskId: id,
          data: { i },
        })),
      ),
    );
    const d = await getTaskDetail(t.db, ops, id, { from: 11 });
    expect(d?.timeline.window).toEqual({ from: 11 });
    expect(d?.timeline.entries[0]?.seq).toBe(11);
    expect(d?.timeline.entries.at(-1)?.seq).toBe(TASK_TIMELINE_PAGE + 10);
  });

  it("says who rejected the task and why, and diffs a payload mismatch's two payloads", async () => {
    const id = await insertTask("rejected");
    const key = newKey();
    await withTransaction(t.pool, (c) =>
      appendLedger(c, taskStream(id), [
        {
          kind: "effect.payload_mismatch",
          actor: "worker:w1",
          taskId: id,
          key,
          data: {
            first: { fingerprint: "a".repeat(64), args: { to: "a@x.io", amountCents: 900 } },
            second: { fingerprint: "b".repeat(64), args: { to: "a@x.io", amountCents: 1200 } },
            policy: "dead-letter",
          },
        },
        {
          kind: "review.rejected",
          actor: "user:rita@example.com",
          taskId: id,
          data: { from: "dead", deadReason: "payload_mismatch", reason: "<i>not</i> this one" },
        },
      ]),
    );
    const d = await getTaskDetail(t.db, ops, id);
    expect(d?.rejection).toMatchObject({
      by: "user:rita@example.com",
      reason: "<i>not</i> this one",
      from: "dead",
    });
    expect(d?.payloadMismatches).toEqual([
      expect.objectContaining({
        key,
        policy: "dead-letter",
        rows: [
          { path: "amountCents", change: "changed", before: "900", after: "1200" },
          { path: "to", change: "same", before: '"a@x.io"', after: '"a@x.io"' },
        ],
      }),
    ]);
    // Without payloads:read the payloads are hidden and no diff is drawn from them.
    const token = await getTaskDetail(t.db, testTokenViewer(["tasks:read"]), id);
    expect(token?.payloadMismatches[0]).toMatchObject({
      first: { args: HIDDEN_PAYLOAD },
      second: { args: HIDDEN_PAYLOAD },
      rows: [],
    });
    expect(token?.rejection?.by).toBe("user:rita@example.com");
  });
});

describe("getTaskDetail authorization", () => {
  it("refuses without a viewer (401) and without tasks:read (403)", async () => {
    await expect(
      getTaskDetail(t.db, null, "0b6f1f0e-6a43-4d6b-9e83-1f2b3c4d5e6f"),
    ).rejects.toMatchObject({ name: "AuthError", status: 401 });
    const denied = getTaskDetail(
      t.db,
      testTokenViewer(["ledger:read"], "reader"),
      "0b6f1f0e-6a43-4d6b-9e83-1f2b3c4d5e6f",
    );
    await expect(denied).rejects.toBeInstanceOf(AuthError);
    await expect(denied).rejects.toMatchObject({
      status: 403,
      message: 'token "reader" may not do this (needs tasks:read)',
    });
  });

  it("hides every payload from a viewer without payloads:read, and nothing else", async () => {
    const { id } = await storyTask();
    const full = await getTaskDetail(t.db, ops, id);
    const d = await getTaskDetail(t.db, testTokenViewer(["tasks:read", "ledger:read"]), id);
    if (!d || !full) throw new Error("task not found");
    expect(d.payloadsHidden).toBe(true);
    expect(full.payloadsHidden).toBe(false);
    expect(d.task.input).toBe(HIDDEN_PAYLOAD);
    // Absence is no payload: a task without a result still says so.
    expect(d.task.result).toBeNull();
    expect(d.steps.map((s) => s.result)).toEqual([HIDDEN_PAYLOAD, HIDDEN_PAYLOAD, null]);
    expect(d.effects.map((e) => [e.intent, e.args, e.result])).toEqual([
      [HIDDEN_PAYLOAD, HIDDEN_PAYLOAD, HIDDEN_PAYLOAD],
      [HIDDEN_PAYLOAD, HIDDEN_PAYLOAD, null],
      [HIDDEN_PAYLOAD, HIDDEN_PAYLOAD, null],
      [HIDDEN_PAYLOAD, HIDDEN_PAYLOAD, null],
    ]);
    expect(d.approvals.map((a) => a.args)).toEqual([HIDDEN_PAYLOAD, HIDDEN_PAYLOAD]);
    expect(d.timeline.payloadsHidden).toBe(true);
    expect(d.timeline.entries.every((e) => e.data === HIDDEN_PAYLOAD)).toBe(true);
    const text = JSON.stringify(d);
    for (const secret of ["ord_1", "48000", "re_1", "pi_1", '"a@example.com"', "99000"]) {
      expect(text, secret).not.toContain(secret);
    }
    // What is not a payload stays: errors, keys, states, the replay preview.
    expect(d.task.lastErrorMessage).toBe("payments API 500: boom");
    expect(d.effects[3]?.error).toEqual(full.effects[3]?.error);
    expect(d.effects.map((e) => [e.key, e.state])).toEqual(
      full.effects.map((e) => [e.key, e.state]),
    );
    expect(d.replay).toEqual(full.replay);
    expect(d.timeline.entries.map((e) => e.kind)).toEqual(full.timeline.entries.map((e) => e.kind));
  });

  it("leaves the ledger out for a viewer who may not read it", async () => {
    const { id } = await storyTask();
    const d = await getTaskDetail(t.db, testTokenViewer(["tasks:read", "payloads:read"]), id);
    expect(d?.ledgerHidden).toBe(true);
    expect(d?.timeline.entries).toEqual([]);
    expect(d?.payloadsHidden).toBe(false);
    expect(d?.task.input).toMatchObject({ orderId: "ord_1" });
    expect((await getTaskDetail(t.db, ops, id))?.ledgerHidden).toBe(false);
  });
});
