// The two-person rule (DESIGN: approving or replaying an effect marked `money` needs two
// different reviewers). For a replay or a resume, the first reviewer's action becomes a pending
// review request bound to the task version; the same action with the same parameters by a
// different reviewer, on that version, carries it out. Money flags come from the catalog the
// workers publish (agent_catalog.tools) and from approvals the worker marked `money`.
import type pg from "pg";
import type { SqlClient } from "../../../db/client";
import type { Principal } from "../../domain/access";
import { type CommandResult, conflict } from "../../domain/command-result";
import { canonicalJson, type JsonValue } from "../../domain/json";
import type { ReviewAction, ReviewPreview } from "../../domain/replay-plan";
import type { TaskStatus } from "../../domain/task-states";
import { appendLedger, taskStream } from "../ledger/append-ledger";
import { pendingRequestOf } from "../review/preview";
import { bulkField } from "./bulk-principal";
import { reviewSpan } from "./review-span";
import { type LockedTask, lockTaskFor, taskTransaction } from "./task-guard";

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

const describeRequest = (r: { action: ReviewAction; fromStep: number }, corrected: boolean) =>
  r.action === "approve"
    ? "resuming the task"
    : `a replay from step ${r.fromStep}${corrected ? " with a corrected input" : ""}`;

/**
 * Withdraws the task's pending request because something else changed the task (reject,
 * cancel, a resolved outcome) or it was made on an older version; the ledger says why.
 */
export async function withdrawPending(
  client: SqlClient,
  taskId: string,
  actor: string,
  why: string,
  bulkId?: string,
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
      data: {
        requestId: Number(r.id),
        action: r.action,
        requestedBy: r.requested_by,
        why,
        ...bulkField(bulkId),
      },
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
 * and has checked the version. Records the request (first person) or the confirmation. A replay
 * with a corrected input (`correction`) is a request of its own: only the same correction
 * confirms it, and a plain replay never confirms a corrected one (or the reverse).
 */
export async function twoPersonGate(
  client: SqlClient,
  task: LockedTask,
  action: ReviewAction,
  fromStep: number,
  preview: ReviewPreview,
  actor: string,
  correction?: { input: JsonValue; data: JsonValue },
  /** The bulk action running this, recorded on the entries written here. */
  bulkId?: string,
): Promise<Gate> {
  let pending = await pendingRequestOf(client, task.id, true);
  if (pending && pending.taskVersion !== task.version) {
    await withdrawPending(
      client,
      task.id,
      actor,
      `the task changed after it was requested (version ${pending.taskVersion}, now ${task.version})`,
      bulkId,
    );
    pending = null;
  }
  if (pending) {
    const at = pending.requestedAt.toISOString();
    const asked = pending.input;
    const described = describeRequest(pending, asked !== null);
    if (
      pending.action !== action ||
      (action === "replay" && pending.fromStep !== fromStep) ||
      (asked === null ? null : canonicalJson(asked)) !==
        (correction ? canonicalJson(correction.input) : null)
    ) {
      return {
        run: false,
        result: conflict(
          `${pending.requestedBy} asked for ${described} at ${at}, waiting for a second reviewer: confirm that request or withdraw it first`,
        ),
      };
    }
    if (pending.requestedBy === actor) {
      return {
        run: false,
        result: conflict(
          `a second, different reviewer must confirm: you asked for ${described} at ${at}`,
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
    [
      task.id,
      action,
      JSON.stringify({ fromStep, preview, ...(correction ? { input: correction.input } : {}) }),
      task.version,
      actor,
    ],
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
      ...(correction ? { correction: correction.data } : {}),
      ...bulkField(bulkId),
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
export const withdrawReviewRequest = reviewSpan("withdraw", withdrawReviewRequestUntraced);

async function withdrawReviewRequestUntraced(
  pool: pg.Pool,
  principal: Principal,
  input: { taskId: string; requestId: number },
): Promise<CommandResult<{ id: string; requestId: number }>> {
  return taskTransaction(pool, async (client) => {
    // Any version: a request stands until it is confirmed or withdrawn, whatever else changed.
    const locked = await lockTaskFor(client, principal, input.taskId, null, "withdraw");
    if ("error" in locked) return locked.error;
    const pending = await pendingRequestOf(client, input.taskId, true);
    if (!pending || pending.id !== input.requestId) {
      return conflict(
        `review request ${input.requestId} is no longer pending: it was confirmed, withdrawn or replaced`,
      );
    }
    await withdrawPending(client, input.taskId, principal.actor, "withdrawn by a reviewer");
    return { ok: true as const, value: { id: input.taskId, requestId: input.requestId } };
  });
}
