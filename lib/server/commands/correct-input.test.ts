// Fix the input and replay, against real PostgreSQL: the corrected input must pass the agent's
// published schema, the correction is a ledger entry with before and after (the original stays
// in task.enqueued), the task replays with a fresh budget while its attempt number keeps
// counting, and when money may act two different reviewers must agree on the same correction.
import { describe, expect, it } from "vitest";
import { withTransaction } from "../../../db/client";
import { setUpTestDatabase } from "../../../db/testing/database";
import { testTokenViewer, testViewer } from "../../auth/testing";
import { operator, principalOf } from "../../domain/access";
import { deriveEffectKey, payloadFingerprint } from "../../domain/hash";
import type { JsonValue } from "../../domain/json";
import { verifyLedger } from "../ledger/verify-ledger";
import { readReviewState } from "../queries/get-review-state";
import { getTaskDetail } from "../queries/get-task-detail";
import { HIDDEN_PAYLOAD } from "../queries/payloads";
import { correctInput } from "./correct-input";
import { insertTask } from "./enqueue-task";
import { replayTask } from "./replay-task";

const t = await setUpTestDatabase("correct_input");
const A = operator("user:alice@example.com");
const B = operator("user:bob@example.com");

const inputSchema = {
  type: "object",
  properties: {
    orderId: { type: "string" },
    to: { type: "string" },
    currency: { type: "string", pattern: "^[a-z]{3}$" },
  },
  required: ["orderId", "to", "currency"],
};

let agents = 0;
async function agent(tool: { name: string; money: boolean }): Promise<string> {
  const name = `fixer-${++agents}`;
  await t.pool.query(
    "insert into agent_catalog (name, input_schema, tools, published_by) values ($1, $2, $3, 'test')",
    [name, JSON.stringify(inputSchema), JSON.stringify([tool])],
  );
  return name;
}

const bad = { orderId: "ord_1", to: "a@example.com", currency: "US dollars" };

/** A dead task whose step 1 performed `tool` with intent {to}, after three attempts. */
async function deadTask(agentName: string, tool: string) {
  const { taskId } = await withTransaction(t.pool, (c) =>
    insertTask(c, { agent: agentName, input: bad, actor: "test" }),
  );
  const intent = { to: bad.to };
  const key = deriveEffectKey(taskId, tool, intent);
  await t.pool.query(
    `insert into steps (task_id, seq, kind, name, status, attempt, effect_key, completed_at)
     values ($1, 1, 'tool', $2, 'completed', 1, $3, now())`,
    [taskId, tool, key],
  );
  await t.pool.query(
    `insert into effects (key, task_id, step_seq, tool, intent, args, fingerprint, status, result, completed_at)
     values ($1, $2, 1, $3, $4, $4, $5, 'succeeded', '{}', now())`,
    [key, taskId, tool, JSON.stringify(intent), payloadFingerprint(intent)],
  );
  const { rows } = await t.pool.query<{ version: number }>(
    `update tasks set status = 'dead', dead_reason = 'non_retryable', attempts = 3, version = version + 1
     where id = $1 returning version`,
    [taskId],
  );
  return { id: taskId, version: rows[0]?.version ?? 0, key };
}

async function row(id: string) {
  const { rows } = await t.pool.query<{
    status: string;
    input: JsonValue;
    attempts: number;
    attempt_base: number;
    version: number;
  }>("select status, input, attempts, attempt_base, version from tasks where id = $1", [id]);
  return rows[0];
}

async function kinds(id: string): Promise<{ kind: string; actor: string; data: JsonValue }[]> {
  const { rows } = await t.pool.query(
    "select kind, actor, data from ledger_entries where task_id = $1 order by seq",
    [id],
  );
  return rows;
}

describe("correctInput", () => {
  it("refuses an input the agent's schema rejects, or one that changes nothing, writing nothing", async () => {
    const name = await agent({ name: "send_email", money: false });
    const task = await deadTask(name, "send_email");
    const wrong = await correctInput(t.pool, A, {
      taskId: task.id,
      version: task.version,
      input: { ...bad, currency: "dollars" },
    });
    expect(wrong).toMatchObject({
      ok: false,
      code: "invalid",
      message: expect.stringMatching(/does not match .*input schema.*currency/),
    });
    const same = await correctInput(t.pool, A, {
      taskId: task.id,
      version: task.version,
      input: { ...bad },
    });
    expect(same).toMatchObject({ ok: false, code: "invalid", message: /same as the task's/ });
    expect(await row(task.id)).toMatchObject({ status: "dead", input: bad, version: task.version });
    expect((await kinds(task.id)).map((e) => e.kind)).toEqual(["task.enqueued"]);
  });

  it("records before and after, replays with the new input, keys that keep their intent dedupe", async () => {
    const name = await agent({ name: "send_email", money: false });
    const task = await deadTask(name, "send_email");
    const fixed = { ...bad, currency: "usd" };
    const r = await correctInput(t.pool, A, {
      taskId: task.id,
      version: task.version,
      input: fixed,
      note: "typed by hand",
    });
    expect(r).toMatchObject({ ok: true, value: { status: "queued", waitingFor: null } });
    if (!r.ok) return;
    expect(r.value.preview.correction.effects).toEqual([
      expect.objectContaining({
        tool: "send_email",
        key: task.key,
        keyChanges: false,
        outcome: "dedupe",
      }),
    ]);
    // A fresh budget; the attempt number goes on from 3.
    expect(await row(task.id)).toMatchObject({
      status: "queued",
      input: fixed,
      attempts: 3,
      attempt_base: 3,
      version: task.version + 1,
    });
    const { rows: steps } = await t.pool.query("select seq from steps where task_id = $1", [
      task.id,
    ]);
    expect(steps).toEqual([]);
    const entries = await kinds(task.id);
    expect(entries.map((e) => e.kind)).toEqual([
      "task.enqueued",
      "task.input_corrected",
      "replay.requested",
    ]);
    expect(entries[0]?.data).toMatchObject({ input: bad });
    expect(entries[1]).toMatchObject({
      actor: "user:alice@example.com",
      data: {
        before: bad,
        after: fixed,
        fromStep: 1,
        note: "typed by hand",
        changes: [{ path: "currency", before: '"US dollars"', after: '"usd"' }],
        proposedBy: A.actor,
        confirmedBy: null,
      },
    });
    // The task page: the input as enqueued, then the correction field by field, with who.
    const detail = await getTaskDetail(t.db, testViewer("reviewer"), task.id);
    expect(detail?.inputHistory).toEqual({
      enqueued: bad,
      corrections: [
        {
          seq: 2,
          at: expect.any(String),
          proposedBy: A.actor,
          confirmedBy: null,
          fromStep: 1,
          note: "typed by hand",
          rows: [{ path: "currency", change: "changed", before: '"US dollars"', after: '"usd"' }],
        },
      ],
    });
    // The task moved on: the same correction on the old version is a stale conflict.
    const again = await correctInput(t.pool, A, {
      taskId: task.id,
      version: task.version,
      input: fixed,
    });
    expect(again).toMatchObject({ ok: false, code: "conflict", stale: true });
  });

  it("a changed intent gets a new key in the preview and acts", async () => {
    const name = await agent({ name: "send_email", money: false });
    const task = await deadTask(name, "send_email");
    const r = await correctInput(t.pool, A, {
      taskId: task.id,
      version: task.version,
      input: { ...bad, currency: "usd", to: "b@example.com" },
    });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.preview.correction.effects).toEqual([
      expect.objectContaining({
        keyChanges: true,
        because: ["to"],
        outcome: "act",
        newKey: deriveEffectKey(task.id, "send_email", { to: "b@example.com" }),
      }),
    ]);
    expect(r.value.preview.effects[0]).toMatchObject({ acts: true });
  });

  it("when money may act, a second reviewer confirms the same correction; nothing else confirms it", async () => {
    const name = await agent({ name: "refund", money: true });
    const task = await deadTask(name, "refund");
    const fixed = { ...bad, currency: "usd", to: "b@example.com" };
    const target = { taskId: task.id, version: task.version };
    const first = await correctInput(t.pool, A, {
      ...target,
      input: fixed,
      note: "a name, not a code",
    });
    expect(first).toMatchObject({
      ok: true,
      value: { status: "dead", waitingFor: { kind: "request", requestedBy: A.actor } },
    });
    if (!first.ok) return;
    expect(first.value.preview.reasons).toContain(
      "refund (step 1) moves money and its intent changes with the input: a new key, it acts",
    );
    expect(await row(task.id)).toMatchObject({ status: "dead", input: bad });

    const mine = await correctInput(t.pool, A, { ...target, input: fixed });
    expect(mine).toMatchObject({
      ok: false,
      code: "conflict",
      message: /second, different reviewer/,
    });
    const plain = await replayTask(t.pool, B, { ...target, fromStep: 1 });
    expect(plain).toMatchObject({ ok: false, code: "conflict", message: /with a corrected input/ });
    const other = await correctInput(t.pool, B, {
      ...target,
      input: { ...fixed, currency: "eur" },
    });
    expect(other).toMatchObject({ ok: false, code: "conflict" });

    // The second reviewer sees the correction field by field before confirming it.
    const state = await readReviewState(t.pool, testViewer("reviewer"), task.id);
    expect(state?.pending).toMatchObject({
      requestedBy: A.actor,
      input: fixed,
      note: "a name, not a code",
      changes: [
        { path: "currency", change: "changed", before: '"US dollars"', after: '"usd"' },
        { path: "to", change: "changed", before: '"a@example.com"', after: '"b@example.com"' },
      ],
    });

    const confirmed = await correctInput(t.pool, B, { ...target, input: fixed });
    expect(confirmed).toMatchObject({ ok: true, value: { status: "queued", waitingFor: null } });
    expect(await row(task.id)).toMatchObject({ status: "queued", input: fixed });
    const entries = await kinds(task.id);
    expect(entries.map((e) => e.kind)).toEqual([
      "task.enqueued",
      "review.requested",
      "task.input_corrected",
      "replay.requested",
    ]);
    expect(entries[1]?.data).toMatchObject({ correction: { before: bad, after: fixed } });
    // Two people, two names: the entry's actor is the confirmer (their action made it happen);
    // the proposer's own act is the review.requested entry above, filed under their name.
    expect(entries[1]).toMatchObject({ kind: "review.requested", actor: A.actor });
    expect(entries[2]).toMatchObject({
      actor: B.actor,
      data: {
        // The why is the proposer's: the confirmation carries none of its own.
        note: "a name, not a code",
        proposedBy: A.actor,
        confirmedBy: B.actor,
        twoPerson: { requestedBy: A.actor, confirmedBy: B.actor },
      },
    });
    const detail = await getTaskDetail(t.db, testViewer("reviewer"), task.id);
    expect(detail?.inputHistory.corrections).toEqual([
      expect.objectContaining({ proposedBy: A.actor, confirmedBy: B.actor }),
    ]);
    // Without payloads:read, who corrected it but not the values.
    const token = await getTaskDetail(
      t.db,
      testTokenViewer(["tasks:read", "ledger:read"]),
      task.id,
    );
    expect(token?.inputHistory).toEqual({
      enqueued: HIDDEN_PAYLOAD,
      corrections: [expect.objectContaining({ proposedBy: A.actor, rows: [] })],
    });
    expect((await verifyLedger(t.pool)).problems).toEqual([]);
  });

  it("a role without deadLetters:review is refused under the lock and nothing is written", async () => {
    const name = await agent({ name: "send_email", money: false });
    const task = await deadTask(name, "send_email");
    const r = await correctInput(t.pool, principalOf(testViewer("ops")), {
      taskId: task.id,
      version: task.version,
      input: { ...bad, currency: "usd" },
    });
    expect(r).toMatchObject({ ok: false, code: "forbidden" });
    expect(await row(task.id)).toMatchObject({ status: "dead", input: bad });
  });
});
