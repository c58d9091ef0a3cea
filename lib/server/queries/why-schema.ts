// The shapes of "why did it send that?": the lookup (exactly one of key, task, recipient,
// Message-ID, refund id) and the answer, as zod schemas the API documents and tests parse with.
import { z } from "zod";
import { DEAD_REASONS, TASK_STATUSES } from "../../domain/task-states";
import { bulkRefSchema } from "./bulk-refs";
import { effectApprovalSchema, effectSchema, effectStepSchema } from "./get-effect";
import { taskIdSchema } from "./get-task-detail";
import { effectKeySchema, ledgerEntrySchema } from "./list-ledger-entries";

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
  /** The bulk action this review was part of, and who froze and confirmed it; else null. */
  bulk: bulkRefSchema.nullable(),
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
