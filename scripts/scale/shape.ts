// What the scale loader writes, one task at a time: the task row, its effects and steps, and
// its ledger stream with a valid hash chain. Deterministic in the task number, so a load of
// the same size is the same data and the measure can name a recipient, a Message-ID or a
// refund id that exists without asking the database first.
import { createHash } from "node:crypto";
import { deriveEffectKey, GENESIS_HASH, payloadFingerprint } from "../../lib/domain/hash";
import type { JsonValue } from "../../lib/domain/json";
import type { DeadReason, TaskStatus } from "../../lib/domain/task-states";
import { canonical, fastEntryHash } from "./canonical";

export const MAIL_DOMAIN = "mail.example.com";
/** Entries of the one long task (a 20k-entry page on the task screen). */
export const BIG_TASK_ENTRIES = 20_000;
const DAY_MS = 86_400_000;

export type AgentShape = { agent: string; tool: string; share: number };

/** Agents by share of tasks: two real example agents and two of the kind users write. */
export const AGENTS: readonly AgentShape[] = [
  { agent: "invoice-reminder", tool: "send_email", share: 0.5 },
  { agent: "refund", tool: "refund", share: 0.3 },
  { agent: "support-triage", tool: "create_ticket", share: 0.15 },
  { agent: "crm-sync", tool: "update_contact", share: 0.05 },
];

/** Dead letters by reason, each with a few error groups whose messages differ by ids only. */
const DEAD_ERRORS: readonly { reason: DeadReason; message: (i: number) => string }[] = [
  { reason: "exhausted", message: (i) => `SMTP 421 4.3.2 Service not available (session ${i})` },
  { reason: "exhausted", message: (i) => `payments: 503 upstream timeout for request req_${i}` },
  {
    reason: "non_retryable",
    message: () => 'currency: expected an ISO 4217 code, got "US dollars"',
  },
  { reason: "non_retryable", message: (i) => `customer ${i} not found` },
  { reason: "outcome_unknown", message: (i) => `connection reset after DATA for message ${i}` },
  { reason: "timeout", message: () => "attempt timed out after 30000 ms" },
  { reason: "budget", message: (i) => `budget 0.50 exceeded: spent 0.${50 + (i % 49)}` },
  {
    reason: "payload_mismatch",
    message: (i) => `effect key reused with other arguments (order ${i})`,
  },
];

const WORKERS = 8;
/** Failed attempts one task may pad its stream with; the loader carries the rest onward. */
const MAX_RETRIES = 6;
const REVIEWERS = ["user:rita@example.com", "user:omar@example.com", "user:lee@example.com"];
const ENQUEUERS = ["token:ci", "token:billing", "user:ops@example.com"];

/** What each loaded model call cost (the spend screen's figures at scale are sums of these). */
const MODEL_CALL_COST = 0.0012;

export type LoadedTask = {
  id: string;
  agent: string;
  status: TaskStatus;
  deadReason: DeadReason | null;
  attempts: number;
  input: JsonValue;
  lastError: JsonValue | null;
  result: JsonValue | null;
  leaseOwner: string | null;
  leaseExpiresAt: string | null;
  createdBy: string;
  createdAt: string;
  statusChangedAt: string;
  /** The sum of its model.called costs, as the runtime keeps tasks.cost. */
  cost: number;
};

export type LoadedEffect = {
  key: string;
  taskId: string;
  stepSeq: number;
  tool: string;
  intent: JsonValue;
  args: JsonValue;
  fingerprint: string;
  status: "started" | "succeeded" | "failed";
  result: JsonValue | null;
  error: JsonValue | null;
  attempts: number;
  createdAt: string;
  completedAt: string | null;
};

export type LoadedStep = {
  taskId: string;
  seq: number;
  kind: "model" | "tool";
  name: string;
  result: JsonValue | null;
  effectKey: string | null;
  attempt: number;
  startedAt: string;
  /** Null for a step that never completed (a tool call whose effect failed or was left open). */
  completedAt: string | null;
};

export type LoadedEntry = {
  stream: string;
  seq: number;
  at: string;
  kind: string;
  actor: string;
  taskId: string | null;
  key: string | null;
  data: JsonValue;
  /** `data` as canonical JSON: hashed, and sent as the jsonb text. */
  dataText: string;
  hash: string;
};

export type TaskBundle = {
  task: LoadedTask;
  effects: LoadedEffect[];
  steps: LoadedStep[];
  entries: LoadedEntry[];
};

/** The same uuid for task number i on every load (md5 of its name, shaped as a uuid). */
export function taskIdOf(i: number): string {
  const h = createHash("md5").update(`scale-task:${i}`).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** Recipients repeat: about three effects per address, as customers get several reminders. */
export const recipientOf = (i: number) => `customer${Math.floor(i / 3)}@example.com`;
export const refundIdOf = (i: number) =>
  `re_${createHash("md5").update(`refund:${i}`).digest("hex").slice(0, 24)}`;

/** A cheap deterministic spread in [0, 1) for task number i and a purpose. */
function spread(i: number, salt: number): number {
  let x = (i + 1) * 2654435761 + salt * 40503;
  x = Math.imul(x ^ (x >>> 16), 0x45d9f3b);
  x = Math.imul(x ^ (x >>> 16), 0x45d9f3b);
  return ((x ^ (x >>> 16)) >>> 0) / 4294967296;
}

export function agentOf(i: number): AgentShape {
  const r = spread(i, 1);
  let acc = 0;
  for (const a of AGENTS) {
    acc += a.share;
    if (r < acc) return a;
  }
  return AGENTS[0] as AgentShape;
}

function statusOf(i: number): TaskStatus {
  const r = spread(i, 2);
  if (r < 0.04) return "dead";
  if (r < 0.07) return "queued";
  if (r < 0.09) return "retry_wait";
  if (r < 0.095) return "running";
  if (r < 0.11) return "awaiting_approval";
  if (r < 0.125) return "rejected";
  if (r < 0.14) return "cancelled";
  return "succeeded";
}

type JsonObject = { [key: string]: JsonValue };
type ToolCall = { intent: JsonObject; args: JsonObject; result: (key: string) => JsonObject };

function toolCall(i: number, shape: AgentShape): ToolCall {
  switch (shape.tool) {
    case "send_email": {
      const to = recipientOf(i);
      const invoiceId = `inv_${100000 + i}`;
      return {
        intent: { to, invoiceId },
        args: {
          to,
          invoiceId,
          subject: `Invoice ${invoiceId} is due`,
          body: `Dear customer, invoice ${invoiceId} of 120.00 EUR is due on Friday.`,
        },
        result: (key: string) => ({ messageId: `<${key}@${MAIL_DOMAIN}>`, accepted: [to] }),
      };
    }
    case "refund": {
      const orderId = `ord_${200000 + i}`;
      const paymentIntent = `pi_${createHash("md5").update(`pi:${i}`).digest("hex").slice(0, 20)}`;
      const amountCents = 500 + (i % 20_000);
      return {
        intent: { orderId, paymentIntent },
        args: { orderId, paymentIntent, amountCents, reason: "requested_by_customer" },
        result: () => ({ refundId: refundIdOf(i), status: "succeeded", amountCents }),
      };
    }
    default: {
      const subject = `${shape.tool} ${i}`;
      return {
        intent: { ref: `ref_${i}` },
        args: { ref: `ref_${i}`, subject, priority: i % 3 === 0 ? "high" : "normal" },
        result: () => ({ id: `obj_${i}`, ok: true }),
      };
    }
  }
}

/**
 * Task number i with about `entryBudget` ledger entries: the enqueue, one attempt or more
 * (retries pad the stream toward the budget, as flaky providers do), a model call choosing
 * one tool call, the effect, and how the task ended. `startMs` is when it was enqueued.
 */
export function taskBundle(i: number, entryBudget: number, startMs: number): TaskBundle {
  const id = taskIdOf(i);
  const shape = agentOf(i);
  const status = statusOf(i);
  const stream = `task:${id}`;
  const call = toolCall(i, shape);
  const key = deriveEffectKey(id, shape.tool, call.intent);
  const fingerprint = payloadFingerprint(call.args);
  const worker = `worker:host-${(i % WORKERS) + 1}`;
  const enqueuer = ENQUEUERS[i % ENQUEUERS.length] as string;
  const reviewer = REVIEWERS[i % REVIEWERS.length] as string;
  const deadError = DEAD_ERRORS[i % DEAD_ERRORS.length] as (typeof DEAD_ERRORS)[number];
  const input: JsonValue = { ...call.args, customerId: `cus_${i}` };

  let ms = startMs;
  let attempt = 0;
  let effectStartedAt = new Date(startMs).toISOString();
  let effectStatus: LoadedEffect["status"] = "succeeded";
  let effectResult: JsonValue | null = call.result(key);
  let effectError: JsonValue | null = null;
  let lastError: JsonValue | null = null;
  let deadReason: DeadReason | null = null;
  let leaseOwner: string | null = null;
  let leaseExpiresAt: string | null = null;
  let taskResult: JsonValue | null = null;
  const entries: LoadedEntry[] = [];
  let prev = GENESIS_HASH;
  // An attempt's start rides on its first entry, as the runtime writes it (attempt-start.ts).
  let started: JsonObject | null = null;
  const startAttempt = (n: number) => {
    started = { attempt: n, agent: shape.agent, at: new Date(ms + 1).toISOString() };
  };
  // An effect's claim rides on the entry that ends it (effect-start.ts), as the runtime writes it.
  let claim: JsonObject | null = null;
  const push = (kind: string, actor: string, raw: JsonValue, withKey = false) => {
    let data: JsonValue = started ? { ...(raw as JsonObject), attemptStarted: started } : raw;
    started = null;
    if (claim && kind.startsWith("effect.")) {
      data = { ...(data as JsonObject), effectStarted: claim };
      claim = null;
    }
    ms += 7 + (entries.length % 13) * 11;
    const e = {
      stream,
      seq: entries.length + 1,
      at: new Date(ms).toISOString(),
      kind,
      actor,
      taskId: id,
      key: withKey ? key : null,
      data,
    };
    const dataText = canonical(data);
    const hash = fastEntryHash(prev, e, dataText);
    entries.push({ ...e, dataText, hash });
    prev = hash;
  };

  push("task.enqueued", enqueuer, { agent: shape.agent, input, key: null, policy: null });
  if (status === "queued") {
    return finish();
  }
  const modelData = (step: number, attempt: number): JsonObject => ({
    step,
    model: "demo-model",
    system: `You are the ${shape.agent} agent.`,
    prompt: `Handle task ${i} (attempt ${attempt}).`,
    text: null,
    toolsOffered: [shape.tool],
    toolCalls: [{ toolName: shape.tool, args: call.args }],
    usage: { inputTokens: 120 + (i % 50), outputTokens: 30 },
    cost: MODEL_CALL_COST,
  });

  // Failed attempts before the last one, as many as the budget leaves room for (4 entries each).
  const base = status === "dead" ? 8 : 7;
  const retries = Math.min(MAX_RETRIES, Math.max(0, Math.floor((entryBudget - base) / 4)));
  for (let r = 0; r < retries; r++) {
    attempt++;
    startAttempt(attempt);
    push("model.called", worker, modelData(1, attempt));
    const error = { name: "ProviderError", message: `upstream 503 (attempt ${attempt})` };
    push("attempt.failed", worker, { attempt, error, retryable: true });
    push("retry.scheduled", worker, {
      attempt,
      runAt: new Date(ms + 30_000).toISOString(),
    });
    push("note.added", reviewer, { note: `watching retries of ${shape.tool} for task ${i}` });
  }
  attempt++;
  startAttempt(attempt);
  push("model.called", worker, modelData(1, attempt));
  push("step.completed", worker, { step: 1, kind: "model", name: "decide", result: null });
  effectStartedAt = new Date(ms).toISOString();
  claim = { at: effectStartedAt, args: call.args, fingerprint };

  if (status === "dead") {
    deadReason = deadError.reason;
    const error = { name: "ToolError", message: deadError.message(i) };
    lastError = error;
    if (deadReason === "outcome_unknown") {
      effectStatus = "started";
      effectResult = null;
      // Its worker died holding the claim: the attempt that found it lapsed recorded it.
      if (claim) claim = { ...claim, lapsed: true, actor: worker };
      push("effect.outcome_unknown", worker, { tool: shape.tool, step: 2, attempt, error }, true);
    } else {
      effectStatus = "failed";
      effectResult = null;
      effectError = error;
      push(
        "effect.failed",
        worker,
        { tool: shape.tool, step: 2, attempt, performed: "no", error },
        true,
      );
    }
    push("attempt.failed", worker, { attempt, error, retryable: false });
    push("task.dead_lettered", worker, { attempt, reason: deadReason, error });
  } else if (status === "running") {
    effectStatus = "started";
    effectResult = null;
    leaseOwner = worker;
    leaseExpiresAt = new Date(ms + 60_000).toISOString();
  } else if (status === "awaiting_approval" || status === "rejected" || status === "retry_wait") {
    effectStatus = "failed";
    effectResult = null;
    effectError = { name: "ToolError", message: "held for review" };
    if (status === "retry_wait") {
      lastError = { name: "ProviderError", message: `upstream 503 for task ${i}` };
      push("attempt.failed", worker, { attempt, error: lastError, retryable: true });
      push("retry.scheduled", worker, { attempt, runAt: new Date(ms + 60_000).toISOString() });
    } else {
      push(
        "approval.requested",
        worker,
        { tool: shape.tool, step: 2, args: call.args, fingerprint },
        true,
      );
      if (status === "rejected")
        push("review.rejected", reviewer, { reason: "not ours to refund", version: 2 });
    }
  } else if (status === "cancelled") {
    effectStatus = "failed";
    effectResult = null;
    effectError = { name: "Cancelled", message: "cancelled by an admin" };
    push("task.cancelled", "user:admin@example.com", { reason: "duplicate request" });
  } else {
    push(
      "effect.succeeded",
      worker,
      { tool: shape.tool, step: 2, attempt, result: effectResult },
      true,
    );
    push("step.completed", worker, {
      step: 2,
      kind: "tool",
      name: shape.tool,
      result: effectResult,
    });
    taskResult = { done: true, effect: key };
    push("task.succeeded", worker, { attempt, result: taskResult });
  }
  // The long-running task: a model loop that kept going (padding its stream to the budget).
  while (entries.length < entryBudget - 1 && entryBudget > 1000) {
    push("model.called", worker, modelData(3 + (entries.length % 1000), attempt));
  }
  return finish();

  function finish(): TaskBundle {
    const createdAt = new Date(startMs).toISOString();
    const lastAt = entries.at(-1)?.at ?? createdAt;
    const ran = status !== "queued";
    return {
      task: {
        id,
        agent: shape.agent,
        status,
        deadReason,
        attempts: attempt,
        input,
        lastError,
        result: taskResult,
        leaseOwner,
        leaseExpiresAt,
        createdBy: enqueuer,
        createdAt,
        statusChangedAt: lastAt,
        cost: entries.filter((e) => e.kind === "model.called").length * MODEL_CALL_COST,
      },
      effects: ran
        ? [
            {
              key,
              taskId: id,
              stepSeq: 2,
              tool: shape.tool,
              intent: call.intent,
              args: call.args,
              fingerprint,
              status: effectStatus,
              result: effectResult,
              error: effectError,
              attempts: 1,
              createdAt: effectStartedAt,
              completedAt: effectStatus === "started" ? null : lastAt,
            },
          ]
        : [],
      steps: ran
        ? [
            {
              taskId: id,
              seq: 1,
              kind: "model",
              name: "decide",
              result: null,
              effectKey: null,
              attempt,
              startedAt: createdAt,
              completedAt: createdAt,
            },
            // The runtime journals a tool step before it calls the tool: every task that ran
            // has one, completed only when its effect succeeded (a dead task's is where it stopped).
            {
              taskId: id,
              seq: 2,
              kind: "tool" as const,
              name: shape.tool,
              result: effectStatus === "succeeded" ? effectResult : null,
              effectKey: key,
              attempt,
              startedAt: effectStartedAt,
              completedAt: effectStatus === "succeeded" ? lastAt : null,
            },
          ]
        : [],
      entries,
    };
  }
}

/** When task i of `tasks` is enqueued: evenly over the last `days` days, oldest first. */
export function startOf(i: number, tasks: number, nowMs: number, days = 90): number {
  const span = days * DAY_MS;
  return Math.floor(nowMs - span + (span * i) / Math.max(1, tasks));
}
