// "Why did it send that?", answered from the record: from an effect key, a task, an email's
// recipient or Message-ID, or a refund id, find the effects and for each one the model decision
// that chose it, the task input, every attempt and failure, who reviewed it, and whether a
// repeat returned the stored result instead of acting. For `GET /why` and the dashboard.
import { and, asc, inArray, type SQL, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../../../db/client";
import { ledgerEntries, steps, tasks } from "../../../db/schema";
import { requireScope, type Viewer } from "../../auth/permissions";
import { canonicalJson, type JsonValue } from "../../domain/json";
import { DEAD_REASONS, TASK_STATUSES } from "../../domain/task-states";
import { taskStream } from "../ledger/append-ledger";
import type { DbReader } from "./db-reader";
import {
  EFFECT_LEDGER_LIMIT,
  effectApprovalSchema,
  effectSchema,
  effectStepSchema,
  loadEffectApprovals,
  loadEffects,
} from "./get-effect";
import { taskIdSchema } from "./get-task-detail";
import { effectKeySchema, ledgerEntrySchema, toLedgerApiEntry } from "./list-ledger-entries";
import { payload, seesPayloads } from "./payloads";

export const WHY_DEFAULT_LIMIT = 20;
export const WHY_MAX_LIMIT = 100;
/** Attempts and reviews kept per task: the latest ones (a sleeping loop wakes many times). */
export const WHY_TASK_EVENTS_LIMIT = 500;

const LOOKUPS = ["key", "taskId", "recipient", "messageId", "refundId"] as const;

/** Exactly one lookup, plus an optional `limit` on how many effects come back (newest first). */
export const whyQuerySchema = z
  .strictObject({
    key: effectKeySchema.optional(),
    taskId: taskIdSchema.optional(),
    /** An email's To address, any case. */
    recipient: z
      .string()
      .trim()
      .toLowerCase()
      .pipe(z.email({ error: "is not an email address." }))
      .optional(),
    /** As in the mail's header, with or without the angle brackets. */
    messageId: z
      .string()
      .trim()
      .max(998, { error: "must be at most 998 characters." })
      .regex(/^<?[^<>\s@]+@[^<>\s@]+>?$/, {
        error: "is not a Message-ID. It looks like <local-part@domain>.",
      })
      .transform((id) => id.replace(/^</, "").replace(/>$/, ""))
      .optional(),
    /** The payment provider's refund id, e.g. re_123. */
    refundId: z
      .string()
      .trim()
      .min(1, { error: "must not be empty." })
      .max(255, { error: "must be at most 255 characters." })
      .regex(/^[A-Za-z0-9_.:-]+$/, { error: "may hold only letters, digits and _ . : -" })
      .optional(),
    limit: z.coerce
      .number({ error: "must be a whole number." })
      .int({ error: "must be a whole number." })
      .min(1, { error: "must be at least 1." })
      .max(WHY_MAX_LIMIT, { error: `must be at most ${WHY_MAX_LIMIT}.` })
      .optional(),
  })
  .superRefine((q, ctx) => {
    const given = LOOKUPS.filter((name) => q[name] !== undefined);
    if (given.length !== 1) {
      ctx.addIssue({
        code: "custom",
        message:
          given.length === 0
            ? `give one of ${LOOKUPS.join(", ")}.`
            : `give only one of ${LOOKUPS.join(", ")}; got ${given.join(" and ")}.`,
      });
    }
  })
  .transform((q) => {
    const by = LOOKUPS.find((name) => q[name] !== undefined) ?? "key";
    return { by, value: q[by] ?? "", limit: q.limit ?? WHY_DEFAULT_LIMIT };
  });

export type WhyQuery = z.output<typeof whyQuerySchema>;

const instant = z.iso.datetime();

const decisionSchema = z.object({
  /** The model step's number in the task's journal. */
  step: z.number().int(),
  ledgerEntryId: z.number().int(),
  at: instant,
  actor: z.string(),
  model: z.string().nullable(),
  /** Payloads (HIDDEN_PAYLOAD without `payloads:read`): what the model was asked and said. */
  system: z.json().nullable(),
  prompt: z.json().nullable(),
  text: z.json().nullable(),
  toolsOffered: z.array(z.string()),
  /** Every tool call the model proposed, arguments redacted by each tool's `sensitive` paths. */
  toolCalls: z.json(),
  /** The proposed call this effect performed: same tool, and the same arguments when they match. */
  chosenCall: z
    .object({ index: z.number().int(), toolName: z.string(), args: z.json() })
    .nullable(),
  usage: z.object({ inputTokens: z.number(), outputTokens: z.number() }).nullable(),
  cost: z.number().nullable(),
});

const attemptSchema = z.object({
  /** The task's attempt counter then; a resume or replay starts it again from 1. */
  attempt: z.number().int(),
  worker: z.string(),
  startedAt: instant,
  endedAt: instant.nullable(),
  outcome: z.enum(["running", "succeeded", "failed", "lost", "requeued", "awaiting_approval"]),
  error: z.json().nullable(),
  /** What followed a failure: a scheduled retry or the dead-letter queue. */
  followedBy: z.enum(["retry", "dead"]).nullable(),
  retryAt: instant.nullable(),
  deadReason: z.string().nullable(),
});

const reviewSchema = z.object({
  ledgerEntryId: z.number().int(),
  kind: z.string(),
  action: z.enum([
    "first_approval",
    "approved",
    "resumed",
    "second_review_requested",
    "withdrawn",
    "rejected",
    "replayed",
    "resolved_happened",
    "resolved_not_happened",
    "cancelled",
  ]),
  actor: z.string(),
  at: instant,
  /** The reviewer's note or reason, or why a request was withdrawn. */
  note: z.string().nullable(),
  fromStep: z.number().int().nullable(),
  /** A two-person action: who asked first (the actor confirmed it). */
  requestedBy: z.string().nullable(),
  /** The effects the entry names; empty when it concerns the whole task. */
  effectKeys: z.array(z.string()),
});

const failureSchema = z.object({
  ledgerEntryId: z.number().int(),
  kind: z.string(),
  at: instant,
  actor: z.string(),
  attempt: z.number().int().nullable(),
  /** effect.failed: "no" (the provider refused: the key may act again) or "unknown". */
  performed: z.string().nullable(),
  /** effect.outcome_unknown: what the runtime did next (reconcile, resend, dead-letter). */
  action: z.string().nullable(),
  error: z.json().nullable(),
});

const whyEffectSchema = z.object({
  effect: effectSchema,
  task: z.object({
    id: z.string(),
    agent: z.string(),
    status: z.enum(TASK_STATUSES),
    deadReason: z.enum(DEAD_REASONS).nullable(),
    attempts: z.number().int(),
    version: z.number().int(),
    enqueuedBy: z.string(),
    enqueuedAt: instant,
    enqueueKey: z.string().nullable(),
    input: z.json(),
  }),
  /** The journal row of the tool step; null when a replay cleared it and has not re-run it. */
  step: effectStepSchema.nullable(),
  /** The model call before the effect was first claimed; null for scripted workflows. */
  decision: decisionSchema.nullable(),
  /** The task's attempts, oldest first. */
  attempts: z.array(attemptSchema),
  attemptsTruncated: z.boolean(),
  /** This effect's failures: refused, unknown outcome, payload mismatch, failed reconcile. */
  failures: z.array(failureSchema),
  approvals: z.array(effectApprovalSchema),
  /** Reviews of the task that concern this effect or the whole task, oldest first. */
  reviews: z.array(reviewSchema),
  /** Times the effect was claimed to act (effect.started): the provider was asked this often. */
  executions: z.number().int(),
  /** A repeat (retry, resume, replay) returned the stored result instead of acting. */
  deduplicated: z.boolean(),
  dedupes: z.array(
    z.object({
      ledgerEntryId: z.number().int(),
      at: instant,
      actor: z.string(),
      attempt: z.number().int().nullable(),
    }),
  ),
  /** Every ledger entry carrying the key, oldest first. */
  history: z.array(ledgerEntrySchema),
  historyTruncated: z.boolean(),
});

export type WhyEffect = z.output<typeof whyEffectSchema>;

export const whyAnswerSchema = z.object({
  query: z.object({ by: z.enum(LOOKUPS), value: z.string() }),
  /** Newest first; empty when nothing matched. */
  effects: z.array(whyEffectSchema),
  /** More effects matched than `limit`; the oldest were left out. */
  truncated: z.boolean(),
  limit: z.number().int(),
  payloadsHidden: z.boolean(),
  asOf: instant,
});

export type WhyAnswer = z.output<typeof whyAnswerSchema>;

const ATTEMPT_KINDS = [
  "attempt.started",
  "task.succeeded",
  "attempt.failed",
  "worker.lost",
  "task.requeued",
  "approval.requested",
  "retry.scheduled",
  "task.dead_lettered",
];
const REVIEW_KINDS = [
  "review.first_approved",
  "review.approved",
  "review.requested",
  "review.withdrawn",
  "review.rejected",
  "replay.requested",
  "outcome.resolved",
  "task.cancelled",
];
const FAILURE_KINDS = [
  "effect.failed",
  "effect.outcome_unknown",
  "effect.payload_mismatch",
  "effect.reconcile_failed",
];

const iso = (d: Date) => d.toISOString();

export async function explainWhy(
  db: Db,
  viewer: Viewer | null,
  query: WhyQuery,
): Promise<WhyAnswer> {
  // The answer is read from the ledger as much as from the tasks.
  requireScope(viewer, "tasks:read");
  const visible = seesPayloads(requireScope(viewer, "ledger:read"));
  return db.transaction(
    async (tx) => {
      const clock = await tx.execute<{ as_of: Date }>(sql`select now() as as_of`);
      const found = await findEffectKeys(tx, query);
      const keys = found.slice(0, query.limit);
      const effectDtos = await loadEffects(tx, keys, visible);
      const taskIds = [...new Set(effectDtos.map((e) => e.taskId))];
      const taskRows =
        taskIds.length === 0 ? [] : await tx.select().from(tasks).where(inArray(tasks.id, taskIds));
      // Only the tool steps of these effects, without results (a tool step's is the effect's).
      const stepRows =
        keys.length === 0
          ? []
          : await tx
              .select({
                taskId: steps.taskId,
                seq: steps.seq,
                kind: steps.kind,
                name: steps.name,
                status: steps.status,
                attempt: steps.attempt,
                effectKey: steps.effectKey,
                startedAt: steps.startedAt,
                completedAt: steps.completedAt,
              })
              .from(steps)
              .where(and(inArray(steps.taskId, taskIds), inArray(steps.effectKey, keys)));
      const approvalsByKey = await loadEffectApprovals(tx, keys);
      const keyed =
        keys.length === 0
          ? []
          : await tx
              .select()
              .from(ledgerEntries)
              .where(inArray(ledgerEntries.key, keys))
              .orderBy(asc(ledgerEntries.id));
      const events = await loadTaskEvents(tx, taskIds);
      const decisions = await loadDecisions(tx, effectDtos);

      const effectsOut = effectDtos.flatMap((effect): WhyEffect[] => {
        const task = taskRows.find((t) => t.id === effect.taskId);
        if (!task) return [];
        const step = stepRows.find(
          (s) =>
            s.taskId === effect.taskId && s.seq === effect.stepSeq && s.effectKey === effect.key,
        );
        const history = keyed.filter((e) => e.key === effect.key);
        const taskEvents = events.get(task.id) ?? { rows: [], truncated: false };
        const dedupes = history.filter((e) => e.kind === "effect.deduplicated");
        return [
          {
            effect,
            task: {
              id: task.id,
              agent: task.agent,
              status: task.status,
              deadReason: task.deadReason,
              attempts: task.attempts,
              version: task.version,
              enqueuedBy: task.createdBy,
              enqueuedAt: iso(task.createdAt),
              enqueueKey: task.enqueueKey,
              input: payload(visible, task.input as JsonValue),
            },
            step: step
              ? {
                  seq: step.seq,
                  kind: step.kind,
                  name: step.name,
                  status: step.status,
                  attempt: step.attempt,
                  startedAt: iso(step.startedAt),
                  completedAt: step.completedAt ? iso(step.completedAt) : null,
                }
              : null,
            decision: toDecision(decisions.get(effect.key), effect, visible),
            attempts: toAttempts(taskEvents.rows),
            attemptsTruncated: taskEvents.truncated,
            failures: history
              .filter((e) => FAILURE_KINDS.includes(e.kind))
              .map((e) => {
                const d = asRecord(e.data as JsonValue);
                return {
                  ledgerEntryId: e.id,
                  kind: e.kind,
                  at: iso(e.at),
                  actor: e.actor,
                  attempt: numberOr(d.attempt),
                  performed: stringOr(d.performed),
                  action: stringOr(d.action) ?? stringOr(d.policy),
                  error: d.error ?? null,
                };
              }),
            approvals: approvalsByKey.get(effect.key) ?? [],
            reviews: toReviews(taskEvents.rows).filter(
              (r) => r.effectKeys.length === 0 || r.effectKeys.includes(effect.key),
            ),
            executions: history.filter((e) => e.kind === "effect.started").length,
            deduplicated: dedupes.length > 0,
            dedupes: dedupes.map((e) => ({
              ledgerEntryId: e.id,
              at: iso(e.at),
              actor: e.actor,
              attempt: numberOr(asRecord(e.data as JsonValue).attempt),
            })),
            history: history.slice(0, EFFECT_LEDGER_LIMIT).map((e) => toLedgerApiEntry(e, visible)),
            historyTruncated: history.length > EFFECT_LEDGER_LIMIT,
          },
        ];
      });

      return {
        query: { by: query.by, value: query.value },
        effects: effectsOut,
        truncated: found.length > query.limit,
        limit: query.limit,
        payloadsHidden: !visible,
        asOf: iso(new Date(clock.rows[0]?.as_of ?? Date.now())),
      };
    },
    { isolationLevel: "repeatable read", accessMode: "read only" },
  );
}

/**
 * Keys of the matching effects, newest first, one more than the limit. Recipient, Message-ID
 * and refund id are read where the tools record them: `to` in the arguments and intent of an
 * email tool, `messageId` and `refundId` in the result. A Message-ID also names its effect by
 * key (`<key@domain>`), which finds a mail whose outcome was never recorded.
 */
async function findEffectKeys(db: DbReader, query: WhyQuery): Promise<string[]> {
  const { rows } = await db.execute<{ key: string }>(
    sql`select key from effects where ${matching(query)}
        order by created_at desc, key desc limit ${query.limit + 1}`,
  );
  return rows.map((r) => r.key);
}

function matching({ by, value: v }: WhyQuery): SQL {
  switch (by) {
    case "key":
      return sql`key = ${v}`;
    case "taskId":
      return sql`task_id = ${v}`;
    case "recipient":
      return sql`(lower(args ->> 'to') = ${v} or lower(intent ->> 'to') = ${v}
        or exists (select 1 from jsonb_array_elements_text(
             case when jsonb_typeof(args -> 'to') = 'array' then args -> 'to' else '[]'::jsonb end) as r
           where lower(r) = ${v}))`;
    case "messageId": {
      const local = v.slice(0, v.lastIndexOf("@")).toLowerCase();
      return sql`(result ->> 'messageId' in (${`<${v}>`}, ${v})
        or key = ${/^[0-9a-f]{64}$/.test(local) ? local : null})`;
    }
    case "refundId":
      return sql`result ->> 'refundId' = ${v}`;
  }
}

type EventRow = {
  id: number;
  seq: number;
  at: Date;
  kind: string;
  actor: string;
  key: string | null;
  data: JsonValue;
};

/** The latest attempt and review entries of each task, oldest first, and whether some were left out. */
async function loadTaskEvents(
  db: DbReader,
  taskIds: readonly string[],
): Promise<Map<string, { rows: EventRow[]; truncated: boolean }>> {
  const byTask = new Map<string, { rows: EventRow[]; truncated: boolean }>();
  if (taskIds.length === 0) return byTask;
  const { rows } = await db.execute<EventRow & { task_id: string; total: number }>(sql`
    select task_id, id, seq, at, kind, actor, key, data, total from (
      select task_id, id, seq, at, kind, actor, key, data,
             row_number() over (partition by task_id order by seq desc) as rn,
             count(*) over (partition by task_id) as total
      from ledger_entries
      where task_id = any(${sql.param([...taskIds])}::uuid[])
        and kind = any(${sql.param([...ATTEMPT_KINDS, ...REVIEW_KINDS])}::text[])
    ) latest
    where rn <= ${WHY_TASK_EVENTS_LIMIT}
    order by task_id, seq`);
  for (const r of rows) {
    const entry = byTask.get(r.task_id) ?? { rows: [], truncated: false };
    entry.rows.push({ ...r, at: new Date(r.at) });
    entry.truncated = Number(r.total) > WHY_TASK_EVENTS_LIMIT;
    byTask.set(r.task_id, entry);
  }
  return byTask;
}

/**
 * For each effect, the last model call before its key first appeared in the ledger (the
 * decision that led to claiming it), at a step before the effect's own. A replay may re-ask
 * the model later; the first claim is what acted.
 */
async function loadDecisions(
  db: DbReader,
  effects: readonly { key: string; taskId: string; stepSeq: number }[],
): Promise<Map<string, EventRow>> {
  const found = new Map<string, EventRow>();
  if (effects.length === 0) return found;
  const { rows } = await db.execute<EventRow & { effect_key: string }>(sql`
    select k.key as effect_key, m.id, m.seq, m.at, m.kind, m.actor, m.key, m.data
    from unnest(${sql.param(effects.map((e) => e.key))}::text[],
                ${sql.param(effects.map((e) => taskStream(e.taskId)))}::text[],
                ${sql.param(effects.map((e) => e.stepSeq))}::int[]) as k(key, stream, step_seq)
    cross join lateral (
      select min(seq) as seq from ledger_entries where key = k.key
    ) first_claim
    cross join lateral (
      select id, seq, at, kind, actor, key, data from ledger_entries
      where stream = k.stream and kind = 'model.called'
        and seq < coalesce(first_claim.seq, 9223372036854775807)
        and case when jsonb_typeof(data -> 'step') = 'number' then (data ->> 'step')::numeric end < k.step_seq
      order by seq desc
      limit 1
    ) m`);
  for (const r of rows) found.set(r.effect_key, { ...r, at: new Date(r.at) });
  return found;
}

const modelCalledSchema = z.object({
  step: z.number().int(),
  model: z.string().nullable().catch(null),
  system: z.string().nullable().catch(null),
  prompt: z.string().nullable().catch(null),
  text: z.string().nullable().catch(null),
  toolsOffered: z.array(z.string()).catch([]),
  toolCalls: z.array(z.object({ toolName: z.string(), args: z.json() })).catch([]),
  usage: z.object({ inputTokens: z.number(), outputTokens: z.number() }).nullable().catch(null),
  cost: z.number().nullable().catch(null),
});

function toDecision(
  entry: EventRow | undefined,
  effect: { tool: string; args: JsonValue },
  visible: boolean,
): WhyEffect["decision"] {
  const parsed = entry ? modelCalledSchema.safeParse(entry.data) : null;
  if (!entry || !parsed?.success) return null;
  const d = parsed.data;
  // Compared before hiding: both sides are redacted by the same tool's sensitive paths.
  const sameArgs = (args: JsonValue) =>
    visible && canonicalJson(args) === canonicalJson(effect.args);
  let index = d.toolCalls.findIndex((c) => c.toolName === effect.tool && sameArgs(c.args));
  if (index < 0) index = d.toolCalls.findIndex((c) => c.toolName === effect.tool);
  const chosen = d.toolCalls[index];
  return {
    step: d.step,
    ledgerEntryId: entry.id,
    at: iso(entry.at),
    actor: entry.actor,
    model: d.model,
    system: payload(visible, d.system),
    prompt: payload(visible, d.prompt),
    text: payload(visible, d.text),
    toolsOffered: d.toolsOffered,
    toolCalls: payload(visible, d.toolCalls),
    chosenCall: chosen
      ? { index, toolName: chosen.toolName, args: payload(visible, chosen.args) }
      : null,
    usage: d.usage,
    cost: d.cost,
  };
}

function toAttempts(rows: readonly EventRow[]): WhyEffect["attempts"] {
  const attempts: WhyEffect["attempts"] = [];
  const ends: Record<string, WhyEffect["attempts"][number]["outcome"]> = {
    "task.succeeded": "succeeded",
    "attempt.failed": "failed",
    "worker.lost": "lost",
    "task.requeued": "requeued",
    "approval.requested": "awaiting_approval",
  };
  for (const e of rows) {
    const d = asRecord(e.data);
    if (e.kind === "attempt.started") {
      attempts.push({
        attempt: numberOr(d.attempt) ?? attempts.length + 1,
        worker: e.actor,
        startedAt: iso(e.at),
        endedAt: null,
        outcome: "running",
        error: null,
        followedBy: null,
        retryAt: null,
        deadReason: null,
      });
      continue;
    }
    const open = attempts.findLast((a) => a.outcome === "running");
    const outcome = ends[e.kind];
    if (outcome && open) {
      open.outcome = outcome;
      open.endedAt = iso(e.at);
      open.error = d.error ?? null;
    }
    const last = attempts.at(-1);
    if (e.kind === "retry.scheduled" && last) {
      last.followedBy = "retry";
      last.retryAt = stringOr(d.runAt);
    }
    if (e.kind === "task.dead_lettered" && last) {
      last.followedBy = "dead";
      last.deadReason = stringOr(d.reason);
    }
  }
  return attempts;
}

function toReviews(rows: readonly EventRow[]): WhyEffect["reviews"] {
  return rows.flatMap((e): WhyEffect["reviews"] => {
    if (!REVIEW_KINDS.includes(e.kind)) return [];
    const d = asRecord(e.data);
    const listed = (value: JsonValue | undefined) =>
      Array.isArray(value)
        ? value.flatMap((item) => {
            const k = asRecord(item).key;
            return typeof k === "string" ? [k] : [];
          })
        : [];
    const action = ((): WhyEffect["reviews"][number]["action"] => {
      switch (e.kind) {
        case "review.first_approved":
          return "first_approval";
        case "review.approved":
          return d.from === "dead" ? "resumed" : "approved";
        case "review.requested":
          return "second_review_requested";
        case "review.withdrawn":
          return "withdrawn";
        case "review.rejected":
          return "rejected";
        case "replay.requested":
          return "replayed";
        case "outcome.resolved":
          return d.happened === true ? "resolved_happened" : "resolved_not_happened";
        default:
          return "cancelled";
      }
    })();
    const twoPerson = asRecord(d.twoPerson);
    return [
      {
        ledgerEntryId: e.id,
        kind: e.kind,
        action,
        actor: e.actor,
        at: iso(e.at),
        note: stringOr(d.note) ?? stringOr(d.reason) ?? stringOr(d.why),
        fromStep: numberOr(d.fromStep),
        requestedBy: stringOr(twoPerson.requestedBy) ?? stringOr(d.requestedBy),
        effectKeys: e.key ? [e.key] : [...listed(d.approvals), ...listed(d.effects)],
      },
    ];
  });
}

function asRecord(value: JsonValue | undefined): Record<string, JsonValue> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? value : {};
}
const numberOr = (value: JsonValue | undefined) => (typeof value === "number" ? value : null);
const stringOr = (value: JsonValue | undefined) => (typeof value === "string" ? value : null);
