// Response and request shapes of /api/v1 as zod schemas. Each response schema is annotated with
// the query's DTO type, so the compiler refuses a schema (and so an OpenAPI document) that
// differs from what the query returns.
import { z } from "zod";
import type { ReplayPreview } from "../../domain/replay-plan";
import { DEAD_REASONS, EFFECT_STATUSES, STEP_KINDS, TASK_STATUSES } from "../../domain/task-states";
import { bulkRefSchema } from "../../server/queries/bulk-refs";
import type {
  EffectDto,
  StepDto,
  TaskApprovalDto,
  TaskDetailDto,
  TaskHeaderDto,
} from "../../server/queries/get-task-detail";
import type { TaskTimelineDto, TimelineEntryDto } from "../../server/queries/list-task-timeline";
import type { TaskListItemDto } from "../../server/queries/list-tasks";
import type { AttemptDto } from "../../server/queries/task-attempts";
import type { FamilyTaskDto, TaskFamilyDto } from "../../server/queries/task-family";
import { archivedSchema } from "../../server/queries/why-schema";

const iso = z.string().describe("ISO 8601 time, UTC");
const json = z
  .json()
  .describe('Any JSON value ("[hidden: needs payloads:read]" without that scope)');

export const taskStatusSchema = z.enum(TASK_STATUSES);
export const deadReasonSchema = z.enum(DEAD_REASONS);

/** A task id in a path: any UUID, any case. */
export const taskIdParam = z.object({
  id: z
    .string()
    .trim()
    .toLowerCase()
    .pipe(z.uuid({ message: "must be a task id (a UUID)" })),
});

export const effectKeyParam = z.object({
  key: z
    .string()
    .regex(/^[0-9a-f]{64}$/, { message: "must be an effect key (64 lower-case hex digits)" }),
});

export const versionField = z
  .number({ message: "must be a number: the task's version you acted on (GET /tasks/{id})" })
  .int("must be a whole number")
  .min(1, "must be at least 1")
  .max(2_147_483_647, "is too large");

export const taskListItemSchema: z.ZodType<TaskListItemDto> = z.object({
  id: z.string(),
  agent: z.string(),
  status: taskStatusSchema,
  deadReason: deadReasonSchema.nullable(),
  attempts: z.number().int(),
  priority: z.number().int().describe("Higher is claimed first among the tasks runnable now"),
  createdAt: iso,
  statusChangedAt: iso,
  lastError: z.string().nullable().describe("The first 300 characters of the last error"),
  waitingFor: z
    .object({
      name: z.string(),
      match: z.record(z.string(), z.json()),
      deadline: iso.nullable(),
    })
    .nullable()
    .describe("A waiting task's event: its name, the match, the deadline (null: none)"),
  joining: z
    .number()
    .int()
    .nullable()
    .describe("A waiting task parked in ctx.join: how many children it joined"),
});

export const taskHeaderSchema: z.ZodType<TaskHeaderDto> = z.object({
  id: z.string(),
  agent: z.string(),
  status: taskStatusSchema,
  deadReason: deadReasonSchema.nullable(),
  attempts: z.number().int(),
  version: z.number().int().describe("Send it back with a review command (optimistic locking)"),
  cost: z.number(),
  createdBy: z.string(),
  traceUrl: z
    .string()
    .nullable()
    .describe(
      "The task's trace in the tracing backend (TRACE_URL_TEMPLATE), when configured and the task was enqueued with a traceparent",
    ),
  createdAt: iso,
  updatedAt: iso,
  statusChangedAt: iso,
  runAt: iso,
  priority: z
    .number()
    .int()
    .describe("Higher is claimed first among the tasks runnable now (-1000 to 1000, default 0)"),
  concurrencyKey: z
    .string()
    .nullable()
    .describe(
      "The agent's concurrency key for the task, when its agent limits per key; empty when the key function failed",
    ),
  leaseOwner: z.string().nullable(),
  leaseExpiresAt: iso.nullable(),
  enqueueKey: z.string().nullable(),
  policy: json.nullable(),
  input: json,
  result: json.nullable(),
  lastError: json.nullable(),
  lastErrorMessage: z.string().nullable(),
  archived: archivedSchema.nullable(),
});

const stepSchema: z.ZodType<StepDto> = z.object({
  seq: z.number().int(),
  kind: z.enum(STEP_KINDS),
  name: z.string(),
  status: z.enum(["started", "completed"]),
  attempt: z.number().int(),
  result: json.nullable(),
  effectKey: z.string().nullable(),
  startedAt: iso,
  completedAt: iso.nullable(),
});

const effectSchema: z.ZodType<EffectDto> = z.object({
  key: z.string(),
  stepSeq: z.number().int(),
  tool: z.string(),
  status: z.enum(EFFECT_STATUSES),
  state: z.enum(["succeeded", "failed", "in_flight", "outcome_unknown"]),
  fingerprint: z.string(),
  intent: json,
  args: json,
  result: json.nullable(),
  error: json.nullable(),
  attempts: z.number().int(),
  leaseOwner: z.string().nullable(),
  leaseExpiresAt: iso.nullable(),
  createdAt: iso,
  updatedAt: iso,
  completedAt: iso.nullable(),
  refs: z.array(z.object({ label: z.string(), value: z.string() })),
});

const approvalSchema: z.ZodType<TaskApprovalDto> = z.object({
  id: z.number().int(),
  effectKey: z.string(),
  fingerprint: z.string(),
  tool: z.string(),
  args: json,
  status: z.enum(["pending", "approved", "rejected"]),
  requestedAt: iso,
  decidedBy: z.string().nullable(),
  decidedAt: iso.nullable(),
  reason: z.string().nullable(),
  usedAt: iso.nullable(),
});

const attemptSchema: z.ZodType<AttemptDto> = z.object({
  attempt: z.number().int(),
  startedAt: iso,
  worker: z.string().describe("The worker that ran it, as `worker:<id>`"),
  version: z
    .string()
    .nullable()
    .describe("The agent code's version that ran it; null if its worker predates versions"),
  versionChangedFrom: z
    .string()
    .nullable()
    .describe("The previous attempt's version, when this attempt ran another"),
});

const timelineEntrySchema: z.ZodType<TimelineEntryDto> = z.object({
  id: z.number().int(),
  seq: z.number().int(),
  at: iso,
  kind: z.string(),
  actor: z.string(),
  key: z.string().nullable(),
  data: json,
  /** The bulk action the entry was part of, and who froze and confirmed it. */
  bulk: bulkRefSchema.nullable(),
});

const timelineSchema: z.ZodType<TaskTimelineDto> = z.object({
  entries: z.array(timelineEntrySchema),
  total: z.number().int(),
  gap: z.object({ afterSeq: z.number().int(), count: z.number().int() }).nullable(),
  window: z.object({ from: z.number().int() }).nullable(),
  payloadsHidden: z.boolean(),
});

export const replayPreviewSchema: z.ZodType<ReplayPreview> = z.object({
  fromStep: z.number().int(),
  rerun: z.array(z.object({ seq: z.number().int(), kind: z.string(), name: z.string() })),
  effects: z.array(
    z.object({
      step: z.number().int(),
      tool: z.string(),
      key: z.string(),
      status: z.enum(EFFECT_STATUSES),
      outcome: z.enum(["dedupe", "act", "outcome_unknown", "in_flight"]),
      mayChange: z.boolean(),
    }),
  ),
  loop: z
    .object({
      askedFrom: z.number().int(),
      keptTurns: z.number().int(),
      proposals: z.array(
        z.object({
          step: z.number().int(),
          tool: z.string(),
          intent: json,
          amount: z.object({ currency: z.string(), minor: z.number().int() }).nullable(),
          outcome: z.enum(["dedupe", "act", "outcome_unknown", "in_flight"]),
        }),
      ),
      note: z.string(),
    })
    .nullable(),
});

const diffRowSchema = z.object({
  path: z.string(),
  change: z.enum(["same", "changed", "added", "removed"]),
  before: z.string().nullable(),
  after: z.string().nullable(),
});

const familyTaskSchema: z.ZodType<FamilyTaskDto> = z.object({
  id: z.string(),
  agent: z.string(),
  status: taskStatusSchema,
  deadReason: deadReasonSchema.nullable(),
  createdAt: z.string(),
});

const familySchema: z.ZodType<TaskFamilyDto> = z.object({
  parent: familyTaskSchema.nullable(),
  children: z.array(familyTaskSchema),
  childCount: z.number().int(),
  byStatus: z.partialRecord(taskStatusSchema, z.number().int()),
});

export const taskDetailSchema: z.ZodType<TaskDetailDto> = z.object({
  task: taskHeaderSchema,
  steps: z.array(stepSchema),
  effects: z.array(effectSchema),
  approvals: z.array(approvalSchema),
  attempts: z.array(attemptSchema),
  family: familySchema,
  timeline: timelineSchema,
  ledgerHidden: z.boolean(),
  payloadsHidden: z.boolean(),
  rejection: z
    .object({
      by: z.string(),
      at: iso,
      reason: z.string(),
      from: z.string().nullable(),
      bulkId: z.string().nullable(),
    })
    .nullable(),
  payloadMismatches: z.array(
    z.object({
      key: z.string(),
      at: iso,
      policy: z.string(),
      first: z.object({ fingerprint: z.string(), args: json }),
      second: z.object({ fingerprint: z.string(), args: json }),
      rows: z.array(diffRowSchema),
    }),
  ),
  inputHistory: z
    .object({
      enqueued: json.describe("The input as the task.enqueued entry recorded it"),
      corrections: z.array(
        z.object({
          seq: z.number().int(),
          at: iso,
          proposedBy: z.string(),
          confirmedBy: z.string().nullable(),
          fromStep: z.number().int().nullable(),
          note: z.string().nullable(),
          rows: z.array(diffRowSchema),
        }),
      ),
    })
    .describe("The input as enqueued and each correction after it, before → after, oldest first"),
  replay: replayPreviewSchema.nullable(),
  asOf: iso,
});

/** What a review command answers: the task's new state (or that it waits for a second person). */
export const reviewResultSchema = z.object({
  id: z.string(),
  status: taskStatusSchema,
  version: z.number().int(),
  waitingFor: z
    .object({
      kind: z.enum(["request", "approval"]),
      requestId: z.number().int().nullable(),
      requestedBy: z.string(),
      requestedAt: iso,
    })
    .nullable()
    .describe("Set when a second, different reviewer must confirm before anything runs"),
});
