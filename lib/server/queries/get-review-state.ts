// For the review screens: a task's two-person state with the previews its buttons confirm, the
// preview for a chosen replay step, and the approvals list's per-task state. Reads only.
import type pg from "pg";
import { principalOf, requireScope, type Viewer } from "../../domain/access";
import { type CommandResult, notFound } from "../../domain/command-result";
import type { JsonValue } from "../../domain/json";
import { changedRows, type DiffRow, diffJson } from "../../domain/json-diff";
import { type ReviewAction, type ReviewPreview, stepOutOfRange } from "../../domain/replay-plan";
import {
  type AllowedActions,
  allowedActions,
  appliesTo,
  type TaskFacts,
} from "../../domain/task-actions";
import type { TaskStatus } from "../../domain/task-states";
import { type CorrectionPreview, correctionPreview, requestNote } from "../review/correction";
import {
  lastStepOf,
  moneyToolsOf,
  pendingRequestOf,
  resumeStep,
  reviewPreview,
} from "../review/preview";
import { latestChecks, type ReconcileCheck, reconcilableTools } from "../review/reconcile";
import { TASK_FACT_SQL } from "../review/task-facts";
import { payload, seesPayloads } from "./payloads";

/** For the task screen: the two-person state and the previews its review buttons confirm. */
export type ReviewStateDto = {
  /** A pending request on the task's current version (an older one no longer counts). */
  pending: {
    id: number;
    action: ReviewAction;
    fromStep: number;
    requestedBy: string;
    requestedAt: string;
    taskVersion: number;
    /** The corrected input the request replays with (fix the input and replay); null otherwise. */
    input: JsonValue | null;
    /**
     * The correction field by field, the task's input now → `input` (the request is bound to
     * this version, so "now" is what its proposer corrected): what the second reviewer checks
     * before confirming. Empty for other requests, or without payloads:read.
     */
    changes: DiffRow[];
    /** Why the first reviewer corrected it, as they wrote it; null when they gave no note. */
    note: string | null;
  } | null;
  /** Pending money approvals and who gave the first yes, if anyone has. */
  moneyApprovals: {
    id: number;
    tool: string;
    firstApprovedBy: string | null;
    firstApprovedAt: string | null;
  }[];
  /** What approving a dead task (resume) would do; null unless dead. */
  resume: ReviewPreview | null;
  /** What a replay from step 1 would do; null unless dead or awaiting approval. */
  replay: ReviewPreview | null;
  /** The highest journaled step: a replay can start at 1 to lastStep + 1. */
  lastStep: number;
  /** What the viewer may do to the task now (lib/domain/task-actions): the buttons to show. */
  allowed: AllowedActions;
  /** "Check with the provider": which tools can, and each effect's latest check by key. */
  reconcile: {
    /** Whether a worker has published the agent (otherwise nothing can be checked). */
    known: boolean;
    tools: string[];
    checks: Record<string, ReconcileCheck>;
  };
};

export async function readReviewState(
  pool: pg.Pool,
  viewer: Viewer | null,
  taskId: string,
): Promise<ReviewStateDto | null> {
  const reader = requireScope(viewer, "tasks:read");
  const client = await pool.connect();
  try {
    await client.query("begin isolation level repeatable read read only");
    const { rows } = await client.query<{
      id: string;
      agent: string;
      status: TaskStatus;
      version: number;
      input: JsonValue;
      unknown_outcome: boolean;
      pending_request: boolean;
    }>(
      // The facts the table asks for besides the status, read as the commands read them, so
      // the panel offers no resolve, reconcile or withdraw that the command would refuse.
      `select t.id, t.agent, t.status, t.version, t.input,
              ${TASK_FACT_SQL.unknownOutcome("t.id")} as unknown_outcome,
              ${TASK_FACT_SQL.pendingRequest("t.id")} as pending_request
       from tasks t where t.id = $1`,
      [taskId],
    );
    const task = rows[0];
    if (!task) return null;
    const facts: TaskFacts = {
      status: task.status,
      unknownOutcome: task.unknown_outcome,
      pendingRequest: task.pending_request,
    };
    const pending = await pendingRequestOf(client, task.id);
    const approvals = await client.query<{
      id: number;
      tool: string;
      money: boolean;
      first_approved_by: string | null;
      first_approved_at: Date | null;
    }>(
      `select id, tool, money, first_approved_by, first_approved_at from approvals
       where task_id = $1 and status = 'pending' order by id`,
      [task.id],
    );
    const flags = await moneyToolsOf(client, task);
    const reconcilable = await reconcilableTools(client, task.agent);
    return {
      pending:
        pending && pending.taskVersion === task.version
          ? {
              id: pending.id,
              action: pending.action,
              fromStep: pending.fromStep,
              requestedBy: pending.requestedBy,
              requestedAt: pending.requestedAt.toISOString(),
              taskVersion: pending.taskVersion,
              input: pending.input,
              changes:
                pending.input !== null && seesPayloads(reader)
                  ? changedRows(diffJson(task.input, pending.input))
                  : [],
              note: pending.input === null ? null : await requestNote(client, task.id, pending.id),
            }
          : null,
      moneyApprovals: approvals.rows
        .filter((a) => a.money || flags.money.has(a.tool))
        .map((a) => ({
          id: Number(a.id),
          tool: a.tool,
          firstApprovedBy: a.first_approved_by,
          firstApprovedAt: a.first_approved_at?.toISOString() ?? null,
        })),
      resume: appliesTo("resume", task.status)
        ? await reviewPreview(client, task, "approve", await resumeStep(client, task.id))
        : null,
      replay: appliesTo("replay", task.status)
        ? await reviewPreview(client, task, "replay", 1)
        : null,
      lastStep: await lastStepOf(client, task.id),
      allowed: allowedActions(facts, principalOf(reader)),
      reconcile: {
        known: reconcilable.known,
        tools: [...reconcilable.tools].sort(),
        checks: Object.fromEntries(
          [...(await latestChecks(client, task.id))].map(([key, check]) => [
            key,
            // The provider's result is a payload like the effect's own.
            check.answer && "result" in check.answer
              ? {
                  ...check,
                  answer: {
                    ...check.answer,
                    result: payload(seesPayloads(reader), check.answer.result),
                  },
                }
              : check,
          ]),
        ),
      },
    };
  } finally {
    await client.query("rollback").catch(() => undefined);
    client.release();
  }
}

/** The preview a reviewer looks at before confirming a replay from `fromStep`; writes nothing. */
export async function previewReview(
  pool: pg.Pool,
  viewer: Viewer | null,
  taskId: string,
  fromStep: number,
): Promise<CommandResult<ReviewPreview & { lastStep: number }>> {
  requireScope(viewer, "tasks:read");
  const client = await pool.connect();
  try {
    await client.query("begin isolation level repeatable read read only");
    const { rows } = await client.query<{ id: string; agent: string }>(
      "select id, agent from tasks where id = $1",
      [taskId],
    );
    const task = rows[0];
    if (!task) return notFound(`no task ${taskId}`);
    const lastStep = await lastStepOf(client, task.id);
    const outside = stepOutOfRange(fromStep, lastStep);
    if (outside) return outside;
    const preview = await reviewPreview(client, task, "replay", fromStep);
    return { ok: true, value: { ...preview, lastStep } };
  } finally {
    await client.query("rollback").catch(() => undefined);
    client.release();
  }
}

export type ApprovalReviewDto = {
  /** The task version a decision must be made on. */
  version: number;
  status: TaskStatus;
  /** A pending approval moves money: two different reviewers must say yes. */
  money: boolean;
  firstApprovedBy: string | null;
  firstApprovedAt: string | null;
  /** What the viewer may do to the task now: the approvals list shows approve and reject. */
  allowed: AllowedActions;
};

/** For the approvals list: each task's version and two-person state, by task id. */
export async function readApprovalReviews(
  pool: pg.Pool,
  viewer: Viewer | null,
  taskIds: readonly string[],
): Promise<Record<string, ApprovalReviewDto>> {
  const reader = principalOf(requireScope(viewer, "tasks:read"));
  if (taskIds.length === 0) return {};
  const { rows } = await pool.query<{
    id: string;
    version: number;
    status: TaskStatus;
    money: boolean;
    first_approved_by: string | null;
    first_approved_at: Date | null;
  }>(
    `select t.id, t.version, t.status,
       coalesce(bool_or(a.money or coalesce(c.tools @> jsonb_build_array(jsonb_build_object('name', a.tool, 'money', true)), false)), false) as money,
       min(a.first_approved_by) as first_approved_by, min(a.first_approved_at) as first_approved_at
     from tasks t
     left join approvals a on a.task_id = t.id and a.status = 'pending'
     left join agent_catalog c on c.name = t.agent
     where t.id = any($1::uuid[])
     group by t.id, t.version, t.status`,
    [taskIds],
  );
  return Object.fromEntries(
    rows.map((r) => [
      r.id,
      {
        version: r.version,
        status: r.status,
        money: r.money,
        firstApprovedBy: r.first_approved_by,
        firstApprovedAt: r.first_approved_at?.toISOString() ?? null,
        allowed: allowedActions(r, reader),
      },
    ]),
  );
}

/**
 * What correcting the task's input to `after` and replaying from `fromStep` would do: the
 * input's changes, which effect keys change (and act) and which deduplicate, and whether two
 * reviewers are needed. Writes nothing; the schema check is the command's (and the action's).
 */
export async function previewCorrection(
  pool: pg.Pool,
  viewer: Viewer | null,
  taskId: string,
  after: JsonValue,
  fromStep: number,
): Promise<CommandResult<CorrectionPreview & { lastStep: number; agent: string }>> {
  requireScope(viewer, "tasks:read");
  const client = await pool.connect();
  try {
    await client.query("begin isolation level repeatable read read only");
    const { rows } = await client.query<{ id: string; agent: string; input: JsonValue }>(
      "select id, agent, input from tasks where id = $1",
      [taskId],
    );
    const task = rows[0];
    if (!task) return notFound(`no task ${taskId}`);
    const lastStep = await lastStepOf(client, task.id);
    const outside = stepOutOfRange(fromStep, lastStep);
    if (outside) return outside;
    const preview = await correctionPreview(client, task, after, fromStep);
    return { ok: true, value: { ...preview, lastStep, agent: task.agent } };
  } finally {
    await client.query("rollback").catch(() => undefined);
    client.release();
  }
}
