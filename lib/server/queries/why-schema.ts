// The shapes of "why did it send that?": the lookup (exactly one of key, task, recipient,
// Message-ID, refund id) and the answer, as zod schemas the API documents and tests parse with.
import { z } from "zod";
import { DEAD_REASONS, TASK_STATUSES } from "../../domain/task-states";
import { bulkRefSchema } from "./bulk-refs";
import { effectApprovalSchema, effectSchema, effectStepSchema } from "./get-effect";
import { taskIdSchema } from "./get-task-detail";
import { ledgerEntrySchema } from "./ledger-entry-dto";
import { effectKeySchema } from "./ledger-search";

export const WHY_DEFAULT_LIMIT = 20;
export const WHY_MAX_LIMIT = 100;
/** Attempts and reviews kept per task: the latest ones (a sleeping loop wakes many times). */
export const WHY_TASK_EVENTS_LIMIT = 500;

const LOOKUPS = ["key", "taskId", "recipient", "messageId", "refundId"] as const;
type LookupName = (typeof LOOKUPS)[number];

/** One schema per lookup: the query takes exactly one of them. */
const LOOKUP_SCHEMAS = {
  key: effectKeySchema,
  taskId: taskIdSchema,
  /** An email's To address, any case. */
  recipient: z
    .string()
    .trim()
    .toLowerCase()
    .pipe(z.email({ error: "is not an email address." })),
  /** As in the mail's header, with or without the angle brackets. */
  messageId: z
    .string()
    .trim()
    .max(998, { error: "must be at most 998 characters." })
    .regex(/^<?[^<>\s@]+@[^<>\s@]+>?$/, {
      error: "is not a Message-ID. It looks like <local-part@domain>.",
    })
    .transform((id) => id.replace(/^</, "").replace(/>$/, "")),
  /** The payment provider's refund id, e.g. re_123. */
  refundId: z
    .string()
    .trim()
    .min(1, { error: "must not be empty." })
    .max(255, { error: "must be at most 255 characters." })
    .regex(/^[A-Za-z0-9_.:-]+$/, { error: "may hold only letters, digits and _ . : -" }),
} satisfies Record<LookupName, z.ZodType<string, string>>;

const EXAMPLE_KEY = "3a7bd3e2360a3d29eea436fcfb7e44c735d117c42d1c1835420b6b9942dd4f1b";

/** What each lookup is, with an example: what a lookup that is not valid is answered with. */
export const WHY_LOOKUP_HELP: Record<LookupName, { what: string; example: string }> = {
  key: { what: "an effect key, 64 hexadecimal digits", example: EXAMPLE_KEY },
  taskId: { what: "a task id, a UUID", example: "0b6f1f0e-6a43-4d6b-9e83-1f2b3c4d5e6f" },
  recipient: { what: "an email's To address", example: "ada@example.com" },
  messageId: {
    what: "an email's Message-ID, angle brackets optional",
    example: `<${EXAMPLE_KEY}@agent-ledger.local>`,
  },
  refundId: { what: "the payment provider's refund id", example: "re_123" },
};

/** Which lookups there are, an example of each. */
export const WHY_LOOKUPS_SENTENCE = `Look up by one of: ${LOOKUPS.map(
  (name) =>
    `${name} (${WHY_LOOKUP_HELP[name].what}), e.g. ${name}=${WHY_LOOKUP_HELP[name].example}`,
).join("; ")}.`;

/** Exactly one lookup, plus an optional `limit` on how many effects come back (newest first). */
export const whyQuerySchema = z
  .strictObject(
    {
      key: LOOKUP_SCHEMAS.key.optional(),
      taskId: LOOKUP_SCHEMAS.taskId.optional(),
      recipient: LOOKUP_SCHEMAS.recipient.optional(),
      messageId: LOOKUP_SCHEMAS.messageId.optional(),
      refundId: LOOKUP_SCHEMAS.refundId.optional(),
      limit: z.coerce
        .number({ error: "must be a whole number." })
        .int({ error: "must be a whole number." })
        .min(1, { error: "must be at least 1." })
        .max(WHY_MAX_LIMIT, { error: `must be at most ${WHY_MAX_LIMIT}.` })
        .optional(),
    },
    {
      error: (issue) =>
        issue.code === "unrecognized_keys"
          ? `${issue.keys.map((k) => `"${k}"`).join(", ")} ${issue.keys.length === 1 ? "is" : "are"} not a lookup here.`
          : undefined,
    },
  )
  // Runs with the other issues in view (their values as given): a lookup that is missing, named
  // twice, unknown or of the wrong form is answered with every lookup and an example of each,
  // and a value that is another lookup's (a task id given as an effect key) names that one.
  .check((ctx) => {
    const given = LOOKUPS.filter((name) => ctx.value[name] !== undefined);
    const lookupIssue = ctx.issues.some(
      (issue) =>
        issue.code === "unrecognized_keys" || LOOKUPS.some((name) => name === issue.path?.[0]),
    );
    const add = (message: string) =>
      ctx.issues.push({ code: "custom", message, input: ctx.value, continue: true });
    if (given.length === 0) {
      add(`give one lookup. ${WHY_LOOKUPS_SENTENCE}`);
    } else if (given.length > 1) {
      add(`give only one of the lookups; got ${given.join(" and ")}. ${WHY_LOOKUPS_SENTENCE}`);
    } else if (lookupIssue) {
      const [name] = given;
      const value = name === undefined ? undefined : ctx.value[name];
      const fits = LOOKUPS.find(
        (other) =>
          other !== name &&
          LOOKUP_SCHEMAS[other].safeParse(value).success &&
          // Most words pass as a refund id; only the provider's own form (re_…) is named.
          (other !== "refundId" || /^re_\w+$/.test(String(value))),
      );
      add(
        fits
          ? `That value is ${WHY_LOOKUP_HELP[fits].what.split(",")[0]}: look it up by ${fits}. ${WHY_LOOKUPS_SENTENCE}`
          : WHY_LOOKUPS_SENTENCE,
      );
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
  outcome: z.enum([
    "running",
    "succeeded",
    "failed",
    "lost",
    "requeued",
    "awaiting_approval",
    "waiting_for_event",
    "waiting_for_children",
    /** Requeued until the next UTC day: its agent had spent its daily budget. */
    "waiting_for_budget",
  ]),
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

export const archivedSchema = z
  .object({
    archiveId: z.uuid(),
    at: instant,
    source: z
      .enum(["database", "files"])
      .nullable()
      .describe(
        "Where this answer's entries of the task were read: the database (it still holds them) or the archive's files under LEDGER_ARCHIVE_DIR, verified; null when neither could be read",
      ),
    unavailable: z
      .object({
        reason: z.enum(["not_configured", "not_found", "not_verified"]),
        message: z.string(),
      })
      .nullable()
      .describe(
        "Why the archive's files could not be read (no LEDGER_ARCHIVE_DIR, no such archive in it, or the files do not verify, and what failed); null when the entries were read",
      ),
  })
  .describe(
    "The archive (agent-ledger archive) that holds the task's ledger stream, and when the stream was frozen: nothing more can be appended to it",
  );

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
    /** The archive that holds the task's ledger stream, frozen since `at`; null if none. */
    archived: archivedSchema.nullable(),
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
  /**
   * Times the effect was claimed to act (each claim is recorded once: an effect.started entry,
   * or data.effectStarted on the entry that ended it): the provider was asked at most this often.
   */
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
