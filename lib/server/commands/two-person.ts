// The two-person rule (DESIGN: approving or replaying an effect marked `money` needs two
// different reviewers). For a replay or a resume, the first reviewer's action becomes a pending
// review request bound to the task version; the same action with the same parameters by a
// different reviewer, on that version, carries it out. Money flags come from the catalog the
// workers publish (agent_catalog.tools) and from approvals the worker marked `money`.
import type pg from "pg";
import { z } from "zod";
import { type SqlClient, withTransaction } from "../../../db/client";
import { requireScope, type Viewer } from "../../auth/permissions";
import type { TaskStatus } from "../../domain/task-states";
import { appendLedger, taskStream } from "../ledger/append-ledger";
import { previewReplay, type ReplayEffect, type ReplayPreview } from "../queries/preview-replay";
import { type CommandResult, conflict, type LockedTask } from "./task-guard";

export type ReviewAction = "replay" | "approve";

export type ReviewEffect = ReplayEffect & {
  /** The tool moves money (catalog flag, or an approval the worker marked `money`). */
  money: boolean;
  /** The re-run will or may perform it: failed, unknown outcome, or arguments that may change. */
  acts: boolean;
};

/** What a replay or resume would do, with the tools that move money marked. */
export type ReviewPreview = Omit<ReplayPreview, "effects"> & {
  action: ReviewAction;
  effects: ReviewEffect[];
  /** False when no worker has published this agent: its tools count as not moving money. */
  catalogKnown: boolean;
  moneyTools: string[];
  /** True when a second, different reviewer must confirm; `reasons` says why. */
  twoPerson: boolean;
  reasons: string[];
};

export type SecondReviewer = {
  /** A review request (replay, resume) or a first approval of a gated effect. */
  kind: "request" | "approval";
  requestId: number | null;
  requestedBy: string;
  requestedAt: string;
};

/** What a review command did: changed the task, or recorded the first of two people. */
export type ReviewOutcome = {
  id: string;
  status: TaskStatus;
  version: number;
  /** Set when nothing ran yet: a second, different reviewer must confirm. */
  waitingFor: SecondReviewer | null;
};

const catalogToolsSchema = z.array(
  z.looseObject({ name: z.string(), money: z.boolean().optional() }),
);

/** The agent's money tools by name, and whether the catalog knows the agent at all. */
export async function moneyToolsOf(
  client: SqlClient,
  task: { id: string; agent: string },
): Promise<{ known: boolean; money: Set<string> }> {
  const { rows } = await client.query<{ tools: unknown }>(
    "select tools from agent_catalog where name = $1",
    [task.agent],
  );
  const parsed = rows[0] ? catalogToolsSchema.safeParse(rows[0].tools) : null;
  const money = new Set(
    parsed?.success ? parsed.data.filter((t) => t.money).map((t) => t.name) : [],
  );
  // The worker marks a parked approval `money` from the tool's own definition.
  const flagged = await client.query<{ tool: string }>(
    "select distinct tool from approvals where task_id = $1 and money",
    [task.id],
  );
  for (const r of flagged.rows) money.add(r.tool);
  return { known: parsed?.success === true, money };
}

/** Where a resume (approve of a dead task) continues: the first step not completed. */
export async function resumeStep(client: SqlClient, taskId: string): Promise<number> {
  const { rows } = await client.query<{ from: number }>(
    `select coalesce(min(seq) filter (where status <> 'completed'), max(seq) + 1, 1)::int as "from"
     from steps where task_id = $1`,
    [taskId],
  );
  return rows[0]?.from ?? 1;
}

/**
 * The preview of a replay from `fromStep` (or of a resume) with money marked. Two reviewers are
 * needed when a money effect would or may act, when a money tool has no effect yet (the run may
 * reach it for the first time: steps past the journal are not known in advance), or when a
 * resume would approve a pending money approval.
 */
export async function reviewPreview(
  client: SqlClient,
  task: { id: string; agent: string },
  action: ReviewAction,
  fromStep: number,
): Promise<ReviewPreview> {
  // One connection: statements in turn (pg deprecates overlapping queries on a client).
  const base = await previewReplay(client, task.id, fromStep);
  const flags = await moneyToolsOf(client, task);
  const kept = await client.query<{ tool: string }>(
    "select distinct tool from effects where task_id = $1 and step_seq < $2",
    [task.id, fromStep],
  );
  const pendingTools = await client.query<{ tool: string }>(
    "select distinct tool from approvals where task_id = $1 and status = 'pending' order by tool",
    [task.id],
  );
  const effects = base.effects.map((e) => ({
    ...e,
    money: flags.money.has(e.tool),
    acts: e.outcome === "act" || e.outcome === "outcome_unknown" || e.mayChange,
  }));
  const reasons: string[] = [];
  for (const e of effects) {
    if (!e.money || !e.acts) continue;
    reasons.push(
      e.outcome === "act"
        ? `${e.tool} (step ${e.step}) moves money and will act`
        : e.outcome === "outcome_unknown"
          ? `${e.tool} (step ${e.step}) moves money and its outcome is unknown: it may be sent again`
          : `${e.tool} (step ${e.step}) moves money and may act: a step before it runs again and may change its arguments`,
    );
  }
  const reached = new Set([...kept.rows.map((r) => r.tool), ...effects.map((e) => e.tool)]);
  for (const tool of [...flags.money].sort()) {
    if (!reached.has(tool)) {
      reasons.push(`${tool} moves money and the run may reach it for the first time`);
    }
  }
  if (action === "approve") {
    for (const r of pendingTools.rows) {
      if (flags.money.has(r.tool)) reasons.push(`the pending approval of ${r.tool} moves money`);
    }
  }
  return {
    ...base,
    action,
    effects,
    catalogKnown: flags.known,
    moneyTools: [...flags.money].sort(),
    twoPerson: reasons.length > 0,
    reasons,
  };
}

export type PendingRequest = {
  id: number;
  action: ReviewAction;
  fromStep: number;
  taskVersion: number;
  requestedBy: string;
  requestedAt: Date;
};

const paramsSchema = z.looseObject({ fromStep: z.number().int() });

/** The task's pending review request, locked when `lock` (callers hold the task row too). */
export async function pendingRequestOf(
  client: SqlClient,
  taskId: string,
  lock = false,
): Promise<PendingRequest | null> {
  const { rows } = await client.query<{
    id: number;
    action: ReviewAction;
    params: unknown;
    task_version: number;
    requested_by: string;
    requested_at: Date;
  }>(
    `select id, action, params, task_version, requested_by, requested_at from review_requests
     where task_id = $1 and status = 'pending'${lock ? " for update" : ""}`,
    [taskId],
  );
  const r = rows[0];
  if (!r) return null;
  const params = paramsSchema.safeParse(r.params);
  return {
    id: Number(r.id),
    action: r.action,
    fromStep: params.success ? params.data.fromStep : 0,
    taskVersion: r.task_version,
    requestedBy: r.requested_by,
    requestedAt: r.requested_at,
  };
}

const describeRequest = (r: { action: ReviewAction; fromStep: number }) =>
  r.action === "replay" ? `a replay from step ${r.fromStep}` : "resuming the task";

/**
 * Withdraws the task's pending request because something else changed the task (reject,
 * cancel, a resolved outcome) or it was made on an older version; the ledger says why.
 */
export async function withdrawPending(
  client: SqlClient,
  taskId: string,
  actor: string,
  why: string,
): Promise<void> {
  const { rows } = await client.query<{ id: number; action: ReviewAction; requested_by: string }>(
    `update review_requests set status = 'withdrawn', decided_by = $2, decided_at = now()
     where task_id = $1 and status = 'pending' returning id, action, requested_by`,
    [taskId, actor],
  );
  for (const r of rows) {
    await appendLedger(client, taskStream(taskId), {
      kind: "review.withdrawn",
      actor,
      taskId,
      data: { requestId: Number(r.id), action: r.action, requestedBy: r.requested_by, why },
    });
  }
}

export type Gate =
  | {
      run: true;
      /** The request this action confirms (two people); null when one was enough. */
      confirms: { requestId: number; requestedBy: string; requestedAt: string } | null;
    }
  | { run: false; result: CommandResult<ReviewOutcome> };

/**
 * Decides whether a replay or resume runs now. The caller holds the task row lock (lockTaskFor)
 * and has checked the version. Records the request (first person) or the confirmation.
 */
export async function twoPersonGate(
  client: SqlClient,
  task: LockedTask,
  action: ReviewAction,
  fromStep: number,
  preview: ReviewPreview,
  actor: string,
): Promise<Gate> {
  let pending = await pendingRequestOf(client, task.id, true);
  if (pending && pending.taskVersion !== task.version) {
    await withdrawPending(
      client,
      task.id,
      actor,
      `the task changed after it was requested (version ${pending.taskVersion}, now ${task.version})`,
    );
    pending = null;
  }
  if (pending) {
    const at = pending.requestedAt.toISOString();
    if (pending.action !== action || (action === "replay" && pending.fromStep !== fromStep)) {
      return {
        run: false,
        result: conflict(
          `${pending.requestedBy} asked for ${describeRequest(pending)} at ${at}, waiting for a second reviewer: confirm that request or withdraw it first`,
        ),
      };
    }
    if (pending.requestedBy === actor) {
      return {
        run: false,
        result: conflict(
          `a second, different reviewer must confirm: you asked for ${describeRequest(pending)} at ${at}`,
        ),
      };
    }
    await client.query(
      `update review_requests set status = 'confirmed', decided_by = $2, decided_at = now()
       where id = $1 and status = 'pending'`,
      [pending.id, actor],
    );
    return {
      run: true,
      confirms: { requestId: pending.id, requestedBy: pending.requestedBy, requestedAt: at },
    };
  }
  if (!preview.twoPerson) return { run: true, confirms: null };

  const { rows } = await client.query<{ id: number; requested_at: Date }>(
    `insert into review_requests (task_id, action, params, task_version, requested_by)
     values ($1, $2, $3, $4, $5) returning id, requested_at`,
    [task.id, action, JSON.stringify({ fromStep, preview }), task.version, actor],
  );
  const row = rows[0];
  if (!row) throw new Error("review request insert returned no row");
  await appendLedger(client, taskStream(task.id), {
    kind: "review.requested",
    actor,
    taskId: task.id,
    data: {
      requestId: Number(row.id),
      action,
      fromStep,
      taskVersion: task.version,
      reasons: preview.reasons,
      rerun: preview.rerun,
      effects: preview.effects,
    },
  });
  return {
    run: false,
    result: {
      ok: true,
      value: {
        id: task.id,
        status: task.status,
        version: task.version,
        waitingFor: {
          kind: "request",
          requestId: Number(row.id),
          requestedBy: actor,
          requestedAt: row.requested_at.toISOString(),
        },
      },
    },
  };
}

/** A reviewer takes back a pending request (theirs, or one they will not confirm). */
export async function withdrawReviewRequest(
  pool: pg.Pool,
  input: { taskId: string; requestId: number; actor: string },
): Promise<CommandResult<{ id: string; requestId: number }>> {
  return withTransaction(pool, async (client) => {
    const pending = await pendingRequestOf(client, input.taskId, true);
    if (!pending || pending.id !== input.requestId) {
      return conflict(
        `review request ${input.requestId} is no longer pending: it was confirmed, withdrawn or replaced`,
      );
    }
    await withdrawPending(client, input.taskId, input.actor, "withdrawn by a reviewer");
    return { ok: true as const, value: { id: input.taskId, requestId: input.requestId } };
  });
}

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
};

// A read beside the commands because it shares their money rules; it writes nothing.
export async function readReviewState(
  pool: pg.Pool,
  viewer: Viewer | null,
  taskId: string,
): Promise<ReviewStateDto | null> {
  requireScope(viewer, "tasks:read");
  const client = await pool.connect();
  try {
    await client.query("begin isolation level repeatable read read only");
    const { rows } = await client.query<{
      id: string;
      agent: string;
      status: TaskStatus;
      version: number;
    }>("select id, agent, status, version from tasks where id = $1", [taskId]);
    const task = rows[0];
    if (!task) return null;
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
    const last = await client.query<{ max: number | null }>(
      "select max(seq) as max from steps where task_id = $1",
      [task.id],
    );
    const replayable = task.status === "dead" || task.status === "awaiting_approval";
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
      resume:
        task.status === "dead"
          ? await reviewPreview(client, task, "approve", await resumeStep(client, task.id))
          : null,
      replay: replayable ? await reviewPreview(client, task, "replay", 1) : null,
      lastStep: last.rows[0]?.max ?? 0,
    };
  } finally {
    await client.query("rollback").catch(() => undefined);
    client.release();
  }
}

/** The preview a reviewer looks at before confirming a replay from `fromStep`; writes nothing. */
export async function previewReview(
  pool: pg.Pool,
  taskId: string,
  fromStep: number,
): Promise<CommandResult<ReviewPreview & { lastStep: number }>> {
  const client = await pool.connect();
  try {
    await client.query("begin isolation level repeatable read read only");
    const { rows } = await client.query<{ id: string; agent: string }>(
      "select id, agent from tasks where id = $1",
      [taskId],
    );
    const task = rows[0];
    if (!task) return { ok: false, code: "not_found", message: `no task ${taskId}` };
    const last = await client.query<{ max: number | null }>(
      "select max(seq) as max from steps where task_id = $1",
      [task.id],
    );
    const lastStep = last.rows[0]?.max ?? 0;
    if (fromStep < 1 || fromStep > lastStep + 1) {
      return {
        ok: false,
        code: "invalid",
        message: `the task has ${lastStep} journaled step(s); replay can start at step 1 to ${lastStep + 1}`,
      };
    }
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
};

/** For the approvals list: each task's version and two-person state, by task id. */
export async function readApprovalReviews(
  pool: pg.Pool,
  viewer: Viewer | null,
  taskIds: readonly string[],
): Promise<Record<string, ApprovalReviewDto>> {
  requireScope(viewer, "tasks:read");
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
      },
    ]),
  );
}
