// "Why did it send that?" against what a real worker recorded: the demo agents send mail and
// refunds to the demo receivers over real sockets, fail, wait for reviewers and deduplicate.
// Staged rows cover what a run cannot produce on demand (a replay, a second model decision).

import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { withTransaction } from "../../../db/client";
import { setUpTestDatabase } from "../../../db/testing/database";
import { createAgents, createModel } from "../../../worker/agents";
import { INVOICE_SYSTEM_PROMPT, lookUpInvoice } from "../../../worker/agents/invoice-reminder";
import { type DemoReceivers, startDemoReceivers } from "../../../worker/demo/receivers";
import { startWorker } from "../../../worker/runtime/worker";
import type { RunningWorker } from "../../../worker/runtime/worker-config";
import { testTokenViewer, testViewer } from "../../auth/testing";
import { operator } from "../../domain/access";
import { parseEnv } from "../../env";
import { approveTask } from "../commands/approve-task";
import { insertTask } from "../commands/enqueue-task";
import { resolveOutcome } from "../commands/resolve-outcome";
import { appendLedger, taskStream } from "../ledger/append-ledger";
import { HIDDEN_PAYLOAD } from "./payloads";
import {
  explainWhy,
  WHY_LOOKUP_HELP,
  WHY_LOOKUPS_SENTENCE,
  type WhyAnswer,
  whyAnswerSchema,
  whyQuerySchema,
} from "./why";

const t = await setUpTestDatabase("why");
const ops = testViewer("ops");
let receivers: DemoReceivers;
let worker: RunningWorker;

beforeAll(async () => {
  await t.pool.query(
    `insert into retry_policies (scope, max_attempts, backoff_initial_ms, backoff_factor, backoff_max_ms, attempt_timeout_ms, updated_by)
     values ('global', 4, 20, 1, 20, 10000, 'test')`,
  );
  receivers = await startDemoReceivers();
  const config = parseEnv({ SMTP_URL: receivers.smtpUrl, PAYMENTS_URL: receivers.paymentsUrl });
  worker = await startWorker({
    pool: t.pool,
    agents: createAgents(config).map((a) => ({ ...a, policy: {} })),
    model: createModel(config),
    concurrency: 4,
    leaseMs: 1_000,
    pollMs: 50,
    log: () => {},
  });
});
afterAll(async () => {
  await worker.stop(1_000);
  await receivers.stop();
});

async function run(agent: string, input: unknown): Promise<string> {
  const { taskId } = await withTransaction(t.pool, (c) =>
    insertTask(c, { agent, input, actor: "token:billing" }),
  );
  return taskId;
}
async function until(id: string, statuses: string[]): Promise<{ status: string; version: number }> {
  for (let i = 0; i < 600; i++) {
    const { rows } = await t.pool.query("select status, version from tasks where id = $1", [id]);
    if (statuses.includes(rows[0].status)) return rows[0];
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`task ${id} did not reach ${statuses.join("/")}`);
}
const overdueInvoice = (prefix: string) => {
  for (let i = 0; ; i++) if (lookUpInvoice(`${prefix}${i}`).daysOverdue > 0) return `${prefix}${i}`;
};
/** Parses the query as the HTTP layer will, asks, and checks the answer against its schema. */
async function why(query: Record<string, unknown>, viewer = ops): Promise<WhyAnswer> {
  const answer = await explainWhy(t.db, viewer, whyQuerySchema.parse(query));
  expect(whyAnswerSchema.parse(answer)).toEqual(answer);
  return answer;
}
const only = (answer: WhyAnswer) => {
  expect(answer.effects).toHaveLength(1);
  const [first] = answer.effects;
  if (!first) throw new Error("no effect");
  return first;
};

describe("explainWhy on an email the invoice agent sent", () => {
  let taskId = "";
  let invoiceId = "";
  let key = "";

  beforeAll(async () => {
    invoiceId = overdueInvoice("inv_why_a");
    taskId = await run("invoice-reminder", { invoiceId, customerEmail: "ada@example.com" });
    await until(taskId, ["succeeded"]);
    const { rows } = await t.pool.query("select key from effects where task_id = $1", [taskId]);
    key = rows[0].key;
  });

  it("from the recipient: the effect, its step, the model's decision, the input and the attempt", async () => {
    const answer = await why({ recipient: "  ADA@Example.com " });
    expect(answer.query).toEqual({ by: "recipient", value: "ada@example.com" });
    expect(answer).toMatchObject({ truncated: false, payloadsHidden: false });
    const found = only(answer);
    expect(found.effect).toMatchObject({
      key,
      taskId,
      tool: "send_email",
      status: "succeeded",
      stepSeq: 3,
      intent: { to: "ada@example.com", invoiceId },
      args: { to: "ada@example.com", invoiceId },
      result: { messageId: `<${key}@agent-ledger.local>`, accepted: ["ada@example.com"] },
    });
    expect(found.step).toMatchObject({ seq: 3, kind: "tool", name: "send_email", attempt: 1 });
    expect(found.decision).toMatchObject({
      step: 2,
      model: "demo-scripted",
      system: INVOICE_SYSTEM_PROMPT,
      toolsOffered: ["send_email"],
      chosenCall: { index: 0, toolName: "send_email", args: { to: "ada@example.com", invoiceId } },
    });
    expect(found.decision?.prompt).toContain(`Invoice ${invoiceId} for ada@example.com`);
    expect(found.decision?.text).toMatch(/days overdue: sending a reminder\.$/);
    expect(found.decision?.usage?.inputTokens).toBeGreaterThan(0);
    expect(found.task).toMatchObject({
      id: taskId,
      agent: "invoice-reminder",
      status: "succeeded",
      enqueuedBy: "token:billing",
      input: { invoiceId, customerEmail: "ada@example.com" },
    });
    expect(found.attempts).toEqual([
      expect.objectContaining({ attempt: 1, outcome: "succeeded", error: null, followedBy: null }),
    ]);
    expect(found.attempts[0]?.worker).toMatch(/^worker:/);
    expect(found).toMatchObject({
      failures: [],
      approvals: [],
      reviews: [],
      executions: 1,
      deduplicated: false,
      dedupes: [],
    });
    // The claim is carried by the result it ended: one execution, one entry.
    expect(found.history.map((e) => e.kind)).toEqual(["effect.succeeded"]);
  });

  it("from the Message-ID the mail server received, with or without brackets, the key and the task", async () => {
    const mail = receivers.smtp.messages().find((m) => m.to.includes("ada@example.com"));
    expect(mail?.messageId).toBe(`<${key}@agent-ledger.local>`);
    for (const query of [
      { messageId: mail?.messageId },
      { messageId: `${key}@agent-ledger.local` },
      { key: key.toUpperCase() },
      { taskId },
    ]) {
      expect(only(await why(query)).effect.key, JSON.stringify(query)).toBe(key);
    }
  });

  it("returns every email to one recipient, newest first, up to the limit", async () => {
    const second = await run("invoice-reminder", {
      invoiceId: overdueInvoice("inv_why_b"),
      customerEmail: "ada@example.com",
    });
    await until(second, ["succeeded"]);
    const both = await why({ recipient: "ada@example.com" });
    expect(both.effects.map((e) => e.task.id)).toEqual([second, taskId]);
    expect(both.truncated).toBe(false);
    const newest = await why({ recipient: "ada@example.com", limit: "1" });
    expect(newest.effects.map((e) => e.task.id)).toEqual([second]);
    expect(newest).toMatchObject({ truncated: true, limit: 1 });
  });

  it("hides payloads from a viewer without payloads:read, keeping who and when", async () => {
    const reader = testTokenViewer(["tasks:read", "ledger:read"], "auditor");
    const found = only(await why({ key }, reader));
    expect(found.effect).toMatchObject({
      intent: HIDDEN_PAYLOAD,
      args: HIDDEN_PAYLOAD,
      result: HIDDEN_PAYLOAD,
      tool: "send_email",
    });
    expect(found.decision).toMatchObject({
      system: HIDDEN_PAYLOAD,
      prompt: HIDDEN_PAYLOAD,
      text: HIDDEN_PAYLOAD,
      toolCalls: HIDDEN_PAYLOAD,
      chosenCall: { toolName: "send_email", args: HIDDEN_PAYLOAD },
      model: "demo-scripted",
    });
    expect(found.task.input).toBe(HIDDEN_PAYLOAD);
    expect(found.history.every((e) => e.data === HIDDEN_PAYLOAD)).toBe(true);
    expect(found.attempts[0]?.outcome).toBe("succeeded");
    const text = JSON.stringify(found);
    expect(text).not.toContain("ada@example.com");
    expect(text).not.toContain(invoiceId);
  });
});

describe("explainWhy on an email whose outcome was unknown until a reviewer resolved it", () => {
  it("finds it by Message-ID with no recorded result, then shows the resolution and the dedupe", async () => {
    receivers.smtp.setFaults({ dropAfterAcceptRate: 1 });
    const taskId = await run("invoice-reminder", {
      invoiceId: overdueInvoice("inv_why_c"),
      customerEmail: "grace@example.com",
    });
    const dead = await until(taskId, ["dead"]);
    receivers.smtp.setFaults({});
    const mail = receivers.smtp.messages().find((m) => m.to.includes("grace@example.com"));
    expect(mail?.messageId).toBeTruthy();

    // The mail server kept it, our record never got a result: the Message-ID carries the key.
    const unknown = only(await why({ messageId: mail?.messageId }));
    expect(unknown.effect).toMatchObject({ state: "outcome_unknown", result: null });
    expect(unknown.task).toMatchObject({ status: "dead", deadReason: "outcome_unknown" });
    expect(unknown.failures.map((f) => [f.kind, f.performed, f.action])).toEqual([
      ["effect.failed", "unknown", null],
      ["effect.outcome_unknown", null, "dead-letter"],
    ]);
    expect(unknown.attempts.map((a) => [a.attempt, a.outcome, a.followedBy, a.deadReason])).toEqual(
      [
        [1, "failed", "retry", null],
        [2, "failed", "dead", "outcome_unknown"],
      ],
    );
    expect(unknown.attempts[0]?.retryAt).not.toBeNull();
    expect(unknown.decision?.chosenCall?.args).toMatchObject({ to: "grace@example.com" });

    const key = unknown.effect.key;
    const resolved = await resolveOutcome(t.pool, operator("user:rita@example.com"), {
      taskId,
      version: dead.version,
      key,
      happened: true,
      result: { messageId: mail?.messageId ?? "", accepted: ["grace@example.com"] },
    });
    expect(resolved.ok).toBe(true);
    await until(taskId, ["succeeded"]);

    const after = only(await why({ recipient: "grace@example.com" }));
    expect(after.effect).toMatchObject({ key, status: "succeeded", state: "succeeded" });
    expect(after.effect.result).toMatchObject({ messageId: mail?.messageId });
    expect(after.reviews).toEqual([
      expect.objectContaining({
        kind: "outcome.resolved",
        action: "resolved_happened",
        actor: "user:rita@example.com",
        effectKeys: [key],
      }),
    ]);
    // The resumed attempt reached the tool again and got the recorded result: no second mail.
    expect(after.deduplicated).toBe(true);
    expect(after.dedupes).toHaveLength(1);
    expect(after.executions).toBe(1);
    expect(after.attempts.map((a) => a.outcome)).toEqual(["failed", "failed", "succeeded"]);
    expect(
      receivers.smtp.messages().filter((m) => m.to.includes("grace@example.com")),
    ).toHaveLength(1);
  });
});

describe("explainWhy on refunds", () => {
  it("from the provider's refund id: a scripted workflow has no model decision", async () => {
    const taskId = await run("refund", {
      orderId: "ord_why_1",
      amountCents: 1_299,
      currency: "usd",
      reason: "damaged",
    });
    await until(taskId, ["succeeded"]);
    const refund = receivers.payments.refunds().find((r) => r.metadata.order_id === "ord_why_1");
    expect(refund?.id).toBeTruthy();
    const found = only(await why({ refundId: refund?.id }));
    expect(found.effect).toMatchObject({
      tool: "refund",
      args: { orderId: "ord_why_1", amountCents: 1_299, paymentIntent: "pi_ord_why_1" },
      result: { refundId: refund?.id, amountCents: 1_299 },
    });
    expect(found.decision).toBeNull();
    expect(found.step).toMatchObject({ seq: 2, name: "refund" });
    expect(found.task.input).toEqual({
      orderId: "ord_why_1",
      amountCents: 1_299,
      currency: "usd",
      reason: "damaged",
    });
  });

  it("names both reviewers of a money refund, from the approval and the ledger", async () => {
    const taskId = await run("refund", {
      orderId: "ord_why_2",
      amountCents: 48_000,
      currency: "usd",
      reason: "customer",
    });
    const parked = await until(taskId, ["awaiting_approval"]);
    const first = await approveTask(t.pool, operator("user:rita@example.com"), {
      taskId,
      version: parked.version,
    });
    expect(first.ok).toBe(true);
    const waiting = await until(taskId, ["awaiting_approval"]);
    const second = await approveTask(t.pool, operator("user:sam@example.com"), {
      taskId,
      version: waiting.version,
      note: "checked the order",
    });
    expect(second.ok).toBe(true);
    await until(taskId, ["succeeded"]);

    const found = only(await why({ taskId }));
    expect(found.approvals).toEqual([
      expect.objectContaining({
        status: "approved",
        money: true,
        firstApprovedBy: "user:rita@example.com",
        decidedBy: "user:sam@example.com",
        reason: "checked the order",
      }),
    ]);
    expect(found.reviews.map((r) => [r.action, r.actor, r.note])).toEqual([
      ["first_approval", "user:rita@example.com", null],
      ["approved", "user:sam@example.com", "checked the order"],
    ]);
    expect(found.attempts.map((a) => a.outcome)).toEqual(["awaiting_approval", "succeeded"]);
    expect(found.history.map((e) => e.kind)).toEqual(["approval.requested", "effect.succeeded"]);
    expect(found.executions).toBe(1);
    expect(found.deduplicated).toBe(false);
  });
});

describe("explainWhy on a staged story", () => {
  const hexKey = () => randomBytes(32).toString("hex");

  it("picks the model call before the first claim and the matching tool call, and keeps reviews of this effect", async () => {
    const { rows } = await t.pool.query<{ id: string }>(
      `insert into tasks (agent, input, status, dead_reason, attempts, created_by)
       values ('mailer', '{"batch":7}', 'dead', 'exhausted', 2, 'user:ops@example.com') returning id`,
    );
    const taskId = rows[0]?.id ?? "";
    const [key, otherKey] = [hexKey(), hexKey()];
    const args = { to: "lin@example.com", body: "second" };
    await t.pool.query(
      `insert into effects (key, task_id, step_seq, tool, intent, args, fingerprint, status, result, completed_at)
       values ($1, $2, 2, 'notify', '{"to":"lin@example.com"}', $3, $4, 'succeeded', '{"ok":true}', now())`,
      [key, taskId, JSON.stringify(args), hexKey()],
    );
    const entry = (kind: string, actor: string, data: object, k?: string) => ({
      kind,
      actor,
      taskId,
      key: k,
      data,
    });
    const modelCall = (text: string) =>
      entry("model.called", "worker:w1", {
        step: 1,
        model: "m",
        system: null,
        prompt: "who?",
        toolsOffered: ["notify"],
        text,
        toolCalls: [
          { toolName: "notify", args: { to: "lin@example.com", body: "first" } },
          { toolName: "notify", args },
        ],
        usage: { inputTokens: 3, outputTokens: 4 },
        cost: 0.001,
      });
    await withTransaction(t.pool, (c) =>
      appendLedger(c, taskStream(taskId), [
        entry("attempt.started", "worker:w1", { attempt: 1 }),
        modelCall("the decision"),
        entry("effect.started", "worker:w1", { attempt: 1, step: 2 }, key),
        entry("effect.succeeded", "worker:w1", { attempt: 1, result: { ok: true } }, key),
        entry("attempt.failed", "worker:w1", { attempt: 1, error: { message: "later step" } }),
        entry("retry.scheduled", "worker:w1", { attempt: 1, runAt: "2025-01-01T00:00:00.000Z" }),
        entry("attempt.started", "worker:w2", { attempt: 2 }),
        entry("worker.lost", "worker:w3", { attempt: 2, worker: "w2" }),
        entry("task.dead_lettered", "worker:w3", { attempt: 2, reason: "exhausted" }),
        entry("replay.requested", "user:rita@example.com", {
          from: "dead",
          fromStep: 1,
          effects: [{ key }],
        }),
        entry("review.rejected", "user:sam@example.com", { from: "dead", reason: "enough" }),
        entry("review.approved", "user:sam@example.com", {
          from: "dead",
          approvals: [{ key: otherKey }],
        }),
        modelCall("a later decision"),
        entry("effect.deduplicated", "worker:w1", { attempt: 1, step: 2 }, key),
      ]),
    );

    const found = only(await why({ key }));
    expect(found.decision).toMatchObject({ text: "the decision", chosenCall: { index: 1, args } });
    expect(found.task).toMatchObject({ input: { batch: 7 }, enqueuedBy: "user:ops@example.com" });
    expect(found.step).toBeNull();
    expect(found.attempts.map((a) => [a.worker, a.outcome, a.followedBy, a.deadReason])).toEqual([
      ["worker:w1", "failed", "retry", null],
      ["worker:w2", "lost", "dead", "exhausted"],
    ]);
    expect(found.attempts[0]?.error).toEqual({ message: "later step" });
    // The approval of another effect is left out; the task-wide rejection is kept.
    expect(found.reviews.map((r) => [r.action, r.actor, r.fromStep, r.note])).toEqual([
      ["replayed", "user:rita@example.com", 1, null],
      ["rejected", "user:sam@example.com", null, "enough"],
    ]);
    expect(found).toMatchObject({ deduplicated: true, executions: 1 });
    expect(found.dedupes).toEqual([expect.objectContaining({ actor: "worker:w1", attempt: 1 })]);
    expect(found.effect.result).toEqual({ ok: true });
  });

  it("answers nothing found with no effects, not an error", async () => {
    for (const query of [
      { key: "0".repeat(64) },
      { taskId: "0b6f1f0e-6a43-4d6b-9e83-1f2b3c4d5e6f" },
      { recipient: "nobody@example.com" },
      { messageId: "<nothing@example.com>" },
      { refundId: "re_nope" },
    ]) {
      const answer = await why(query);
      expect(answer, JSON.stringify(query)).toMatchObject({ effects: [], truncated: false });
    }
  });
});

describe("whyQuerySchema", () => {
  const problems = (input: unknown) =>
    (whyQuerySchema.safeParse(input).error?.issues ?? []).map((i) =>
      `${i.path.join(".")}: ${i.message}`.replace(/^: /, ""),
    );

  it("takes exactly one lookup and says which were given", () => {
    expect(problems({})).toEqual([`give one lookup. ${WHY_LOOKUPS_SENTENCE}`]);
    expect(problems({ limit: 3 })).toEqual([`give one lookup. ${WHY_LOOKUPS_SENTENCE}`]);
    expect(problems({ key: "a".repeat(64), recipient: "x@example.com" })).toEqual([
      `give only one of the lookups; got key and recipient. ${WHY_LOOKUPS_SENTENCE}`,
    ]);
    expect(problems({ email: "x@example.com" })).toEqual([
      '"email" is not a lookup here.',
      `give one lookup. ${WHY_LOOKUPS_SENTENCE}`,
    ]);
  });

  it("names every lookup with an example of each, and each example is taken", () => {
    for (const [name, { example }] of Object.entries(WHY_LOOKUP_HELP)) {
      expect(WHY_LOOKUPS_SENTENCE).toContain(`e.g. ${name}=${example}`);
      expect(whyQuerySchema.safeParse({ [name]: example }).success, name).toBe(true);
    }
  });

  it("answers a value of another lookup's form with the lookup it fits", () => {
    const uuid = "0b6f1f0e-6a43-4d6b-9e83-1f2b3c4d5e6f";
    expect(problems({ key: uuid })).toEqual([
      "key: is not an effect key. Effect keys are 64 hexadecimal digits (a sha256).",
      `That value is a task id: look it up by taskId. ${WHY_LOOKUPS_SENTENCE}`,
    ]);
    expect(problems({ taskId: "ada@example.com" })[1]).toMatch(
      /^That value is an email's To address: look it up by recipient\./,
    );
    expect(problems({ recipient: "<abc@host>" })[1]).toMatch(/look it up by messageId\./);
    expect(problems({ taskId: "re_123" })[1]).toMatch(/look it up by refundId\./);
    // A word that only happens to pass as a refund id is not called one.
    expect(problems({ key: "hello" })).toEqual([
      "key: is not an effect key. Effect keys are 64 hexadecimal digits (a sha256).",
      WHY_LOOKUPS_SENTENCE,
    ]);
  });

  it("says what is wrong with each form and normalizes the right ones", () => {
    expect(problems({ key: "abc" })[0]).toMatch(/^key: is not an effect key/);
    expect(problems({ taskId: "7" })[0]).toMatch(/^taskId: is not a task id/);
    expect(problems({ recipient: "not an address" })).toEqual([
      "recipient: is not an email address.",
      WHY_LOOKUPS_SENTENCE,
    ]);
    expect(problems({ messageId: "no-at-sign" })[0]).toMatch(/^messageId: is not a Message-ID/);
    expect(problems({ refundId: "re 1" })[0]).toMatch(/^refundId: may hold only/);
    expect(problems({ refundId: "re_1", limit: "0" })).toEqual(["limit: must be at least 1."]);
    expect(problems({ refundId: "re_1", limit: "1000" })).toEqual(["limit: must be at most 100."]);
    expect(problems({ refundId: "re_1", email: "x" })[0]).toBe('"email" is not a lookup here.');
    expect(whyQuerySchema.parse({ messageId: " <abc@host> " })).toEqual({
      by: "messageId",
      value: "abc@host",
      limit: 20,
    });
    expect(whyQuerySchema.parse({ key: "A".repeat(64), limit: 5 })).toEqual({
      by: "key",
      value: "a".repeat(64),
      limit: 5,
    });
  });

  it("publishes schemas that convert to JSON Schema for OpenAPI", () => {
    expect(z.toJSONSchema(whyQuerySchema, { io: "input" })).toMatchObject({ type: "object" });
    expect(z.toJSONSchema(whyAnswerSchema)).toMatchObject({ type: "object" });
  });
});

describe("explainWhy authorization", () => {
  const query = whyQuerySchema.parse({ recipient: "ada@example.com" });

  it("refuses without a viewer, without tasks:read and without ledger:read", async () => {
    await expect(explainWhy(t.db, null, query)).rejects.toMatchObject({ status: 401 });
    for (const scopes of [
      ["ledger:read", "payloads:read"],
      ["tasks:read", "payloads:read"],
    ] as const) {
      await expect(explainWhy(t.db, testTokenViewer(scopes), query)).rejects.toMatchObject({
        name: "AuthError",
        status: 403,
      });
    }
  });
});
