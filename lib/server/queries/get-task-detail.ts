// The task screen, the one that answers "why did it send that?": the task, its step journal,
// its effects and approvals, its whole ledger stream, and (where a reviewer could replay it)
// what a replay from step 1 would do, all read in one read-only snapshot so they agree.
import { asc, eq, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../../../db/client";
import { approvals, effects, journalSteps, ledgerStreams, tasks } from "../../../db/schema";
import { can, requireScope, type Viewer } from "../../domain/access";
import type { JsonValue } from "../../domain/json";
import { type ProviderRef, providerRefs } from "../../domain/provider-refs";
import { planReplay, type ReplayPreview } from "../../domain/replay-plan";
import { appliesTo } from "../../domain/task-actions";
import type { DeadReason, StepKind, TaskStatus } from "../../domain/task-states";
import { traceUrlOf } from "../../domain/traceparent";
import { env } from "../../env";
import { taskStream } from "../ledger/append-ledger";
import {
  type ArchiveConfig,
  type ArchivedDto,
  archiveConfig,
  archivedStream,
} from "./archived-entries";
import type { InputHistoryDto } from "./input-history";
import {
  archivedTaskTimeline,
  listTaskTimeline,
  type TaskTimelineDto,
  type TimelineSearch,
} from "./list-task-timeline";
import { payload, seesPayloads } from "./payloads";
import type { AttemptDto } from "./task-attempts";
import { readTaskFamily, type TaskFamilyDto } from "./task-family";
import { readTaskLedger, type TaskLedgerDto, taskLedgerOf } from "./task-ledger";

export { type ArchivedDto, archivedOf } from "./archived-entries";

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A task id as it appears in the address: any UUID in its usual written form, any case. */
export const taskIdSchema = z
  .string()
  .regex(UUID_PATTERN, {
    error: "is not a task id. Task ids are UUIDs such as 0b6f1f0e-6a43-4d6b-9e83-1f2b3c4d5e6f.",
  })
  .transform((id) => id.toLowerCase());

export type EffectState = "succeeded" | "failed" | "in_flight" | "outcome_unknown";

export type TaskHeaderDto = {
  id: string;
  agent: string;
  status: TaskStatus;
  deadReason: DeadReason | null;
  attempts: number;
  version: number;
  cost: number;
  createdBy: string;
  /** The tracing backend's page for the task's trace (TRACE_URL_TEMPLATE), when both are known. */
  traceUrl: string | null;
  /** ISO 8601, UTC. */
  createdAt: string;
  updatedAt: string;
  statusChangedAt: string;
  runAt: string;
  /** Higher is claimed first among runnable tasks; 0 unless set at enqueue. */
  priority: number;
  /** The agent's concurrency key for it (issue 21); "" when the key function failed. */
  concurrencyKey: string | null;
  leaseOwner: string | null;
  leaseExpiresAt: string | null;
  enqueueKey: string | null;
  /** The task's own retry-policy override, the first level of resolution. */
  policy: JsonValue | null;
  input: JsonValue;
  result: JsonValue | null;
  lastError: JsonValue | null;
  /** The message of `lastError`, when it has one. */
  lastErrorMessage: string | null;
  /**
   * The archive (`agent-ledger archive`) that holds the task's ledger stream, when it was
   * frozen and where this answer's entries came from (the database or the archive's files);
   * null while the stream takes appends.
   */
  archived: ArchivedDto | null;
};

export type StepDto = {
  seq: number;
  kind: StepKind;
  name: string;
  status: "started" | "completed";
  attempt: number;
  /**
   * What the step returned. A tool step shows its effect's result as the ledger recorded it
   * (redacted), never the raw journal copy, which may hold the tool's sensitive fields.
   */
  result: JsonValue | null;
  effectKey: string | null;
  startedAt: string;
  completedAt: string | null;
};

export type EffectDto = {
  key: string;
  stepSeq: number;
  tool: string;
  status: "started" | "succeeded" | "failed";
  /** `status` read with the lease: a started effect is in flight or its outcome is unknown. */
  state: EffectState;
  fingerprint: string;
  intent: JsonValue;
  /** Redacted when first performed. */
  args: JsonValue;
  /** The result as the ledger recorded it (redacted); null until it succeeded. */
  result: JsonValue | null;
  error: JsonValue | null;
  attempts: number;
  leaseOwner: string | null;
  leaseExpiresAt: string | null;
  createdAt: string;
  updatedAt: string;
  completedAt: string | null;
  /** What to look up at the provider: the full key, Message-ID, payment intent… */
  refs: ProviderRef[];
};

export type TaskApprovalDto = {
  id: number;
  effectKey: string;
  fingerprint: string;
  tool: string;
  args: JsonValue;
  status: "pending" | "approved" | "rejected";
  requestedAt: string;
  decidedBy: string | null;
  decidedAt: string | null;
  reason: string | null;
  usedAt: string | null;
};

export type TaskDetailDto = {
  task: TaskHeaderDto;
  steps: StepDto[];
  effects: EffectDto[];
  approvals: TaskApprovalDto[];
  /** Each attempt with the agent code version that ran it, oldest first (task-attempts.ts). */
  attempts: AttemptDto[];
  /** The task that spawned this one and the ones it spawned (task-family.ts). */
  family: TaskFamilyDto;
  /**
   * The task's ledger stream, or the window of it the address asks for; empty when the viewer
   * may not read the ledger (`ledgerHidden`).
   */
  timeline: TaskTimelineDto;
  /** The viewer lacks `ledger:read`. */
  ledgerHidden: boolean;
  /**
   * The viewer lacks `payloads:read`: task input and result, step results, effect intents,
   * arguments and results, approval arguments and ledger data are HIDDEN_PAYLOAD.
   */
  payloadsHidden: boolean;
  /**
   * Who rejected the task, when and why (its latest review.rejected entry), and the bulk action
   * it was part of; null otherwise.
   */
  rejection: TaskLedgerDto["rejection"];
  /**
   * Each effect.payload_mismatch of the task, latest first: the payload performed (or
   * approved) first beside the one a later run asked for, and their differences.
   */
  payloadMismatches: TaskLedgerDto["payloadMismatches"];
  /**
   * The input as enqueued and each correction after it (fix the input and replay), oldest
   * first, read from the task's ledger entries. Who corrected what is review history anyone who
   * reads the task may know; the values are payloads (HIDDEN_PAYLOAD, and no rows, without
   * payloads:read).
   */
  inputHistory: InputHistoryDto;
  /** A replay from step 1, for tasks a reviewer can replay; null otherwise. */
  replay: ReplayPreview | null;
  /** The database clock when the snapshot was taken, ISO 8601. */
  asOf: string;
};

const iso = (d: Date) => d.toISOString();
const isoOrNull = (d: Date | null) => (d ? d.toISOString() : null);

function errorMessage(error: unknown): string | null {
  if (typeof error === "string") return error;
  if (typeof error === "object" && error !== null && "message" in error) {
    return typeof error.message === "string" ? error.message : null;
  }
  return null;
}

function effectState(status: EffectDto["status"], live: boolean): EffectState {
  if (status !== "started") return status;
  return live ? "in_flight" : "outcome_unknown";
}

/**
 * The task with `id` (a lower-case UUID), or null when there is none. An archived task whose
 * entries the database no longer holds is read from `archives` (LEDGER_ARCHIVE_DIR).
 */
export async function getTaskDetail(
  db: Db,
  viewer: Viewer | null,
  id: string,
  search: TimelineSearch = {},
  archives: ArchiveConfig = archiveConfig(),
): Promise<TaskDetailDto | null> {
  const reader = requireScope(viewer, "tasks:read");
  const readsLedger = can(reader, "ledger:read");
  const visible = seesPayloads(reader);
  const shown = (value: JsonValue) => payload(visible, value);
  // Every email's Message-ID is <key@the sender's domain> (DESIGN, the email integration).
  const mailDomain = env().MAIL_FROM.split("@")[1] ?? "agent-ledger.local";
  return db.transaction(
    async (tx) => {
      // The stream's head row by its primary key, for the archive mark (issue 23).
      const [task] = await tx
        .select({
          row: tasks,
          archivedIn: ledgerStreams.archivedIn,
          archivedAt: ledgerStreams.archivedAt,
          headSeq: ledgerStreams.headSeq,
          headHash: ledgerStreams.headHash,
          asOf: sql<Date>`now()`.mapWith(tasks.createdAt),
        })
        .from(tasks)
        .leftJoin(ledgerStreams, eq(ledgerStreams.stream, taskStream(id)))
        .where(eq(tasks.id, id));
      if (!task) return null;
      const t = task.row;
      const stream = taskStream(t.id);

      const stepRows = await tx
        .select()
        .from(journalSteps)
        .where(eq(journalSteps.taskId, t.id))
        .orderBy(asc(journalSteps.seq));

      const effectRows = await tx
        .select({
          row: effects,
          live: sql<boolean>`coalesce(${effects.leaseExpiresAt} > now(), false)`,
        })
        .from(effects)
        .where(eq(effects.taskId, t.id))
        .orderBy(asc(effects.stepSeq), asc(effects.createdAt), asc(effects.key));

      const approvalRows = await tx
        .select()
        .from(approvals)
        .where(eq(approvals.taskId, t.id))
        .orderBy(asc(approvals.requestedAt), asc(approvals.id));

      const { archived, files } = await archivedStream(tx, stream, task, archives);
      const timeline: TaskTimelineDto = !readsLedger
        ? { entries: [], total: 0, gap: null, window: null, payloadsHidden: !visible }
        : files !== null
          ? await archivedTaskTimeline(tx, reader, files, search)
          : await listTaskTimeline(tx, reader, t.id, search);
      const keys = effectRows.map((e) => e.row.key);
      const input = t.input as JsonValue;
      // The effects table keeps the raw result (a dedupe must return it); screens show the
      // copy the ledger holds, redacted by the tool's `sensitive` paths.
      const { recorded, rejection, payloadMismatches, inputHistory, attempts } =
        files !== null
          ? taskLedgerOf(files, keys, input, visible)
          : await readTaskLedger(tx, stream, keys, input, visible);

      const effectDtos: EffectDto[] = effectRows.map(({ row: e, live }) => ({
        key: e.key,
        stepSeq: e.stepSeq,
        tool: e.tool,
        status: e.status,
        state: effectState(e.status, live),
        fingerprint: e.fingerprint,
        intent: shown(e.intent as JsonValue),
        args: shown(e.args as JsonValue),
        result: e.status === "succeeded" ? shown(recorded.get(e.key) ?? null) : null,
        error: (e.error ?? null) as JsonValue | null,
        attempts: e.attempts,
        leaseOwner: e.leaseOwner,
        leaseExpiresAt: isoOrNull(e.leaseExpiresAt),
        createdAt: iso(e.createdAt),
        updatedAt: iso(e.updatedAt),
        completedAt: isoOrNull(e.completedAt),
        refs: providerRefs(e.tool, e.key, shown(e.args as JsonValue), mailDomain),
      }));

      const family = await readTaskFamily(tx, t.id, t.parentId);

      return {
        task: {
          id: t.id,
          agent: t.agent,
          status: t.status,
          deadReason: t.deadReason,
          attempts: t.attempts,
          version: t.version,
          cost: t.cost,
          createdBy: t.createdBy,
          traceUrl: traceUrlOf(env().TRACE_URL_TEMPLATE, t.traceparent) ?? null,
          createdAt: iso(t.createdAt),
          updatedAt: iso(t.updatedAt),
          statusChangedAt: iso(t.statusChangedAt),
          runAt: iso(t.runAt),
          priority: t.priority,
          concurrencyKey: t.concurrencyKey,
          leaseOwner: t.leaseOwner,
          leaseExpiresAt: isoOrNull(t.leaseExpiresAt),
          enqueueKey: t.enqueueKey,
          policy: (t.policy ?? null) as JsonValue | null,
          input: shown(t.input as JsonValue),
          result: shown((t.result ?? null) as JsonValue),
          lastError: (t.lastError ?? null) as JsonValue | null,
          lastErrorMessage: errorMessage(t.lastError),
          archived,
        },
        steps: stepRows.map((s) => ({
          seq: s.seq,
          kind: s.kind,
          name: s.name,
          status: s.status,
          attempt: s.attempt,
          result: shown(
            s.kind === "tool"
              ? s.effectKey === null
                ? null
                : (recorded.get(s.effectKey) ?? null)
              : ((s.result ?? null) as JsonValue),
          ),
          effectKey: s.effectKey,
          startedAt: iso(s.startedAt),
          completedAt: isoOrNull(s.completedAt),
        })),
        effects: effectDtos,
        approvals: approvalRows.map((a) => ({
          id: a.id,
          effectKey: a.effectKey,
          fingerprint: a.fingerprint,
          tool: a.tool,
          args: shown(a.args as JsonValue),
          status: a.status,
          requestedAt: iso(a.requestedAt),
          decidedBy: a.decidedBy,
          decidedAt: isoOrNull(a.decidedAt),
          reason: a.reason,
          usedAt: isoOrNull(a.usedAt),
        })),
        attempts,
        family,
        timeline,
        // Who rejected and why is review history anyone who reads the task may know.
        rejection,
        payloadMismatches,
        inputHistory,
        ledgerHidden: !readsLedger,
        payloadsHidden: !visible,
        replay: appliesTo("replay", t.status)
          ? planReplay(
              stepRows,
              effectRows.map(({ row: e, live }) => ({
                stepSeq: e.stepSeq,
                tool: e.tool,
                key: e.key,
                status: e.status,
                live,
              })),
              1,
            )
          : null,
        asOf: iso(task.asOf),
      };
    },
    { isolationLevel: "repeatable read", accessMode: "read only" },
  );
}
