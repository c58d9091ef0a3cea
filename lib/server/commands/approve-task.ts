// approve: a parked gated effect may act (only with the payload the reviewer saw), or a dead
// task resumes from its last completed step with a fresh attempt budget. Under the two-person
// rule a money approval takes two different reviewers (the first is recorded on the approval
// as `review.first_approved`), and a resume that can reach money is a review request that a
// second reviewer confirms (two-person.ts).
import type pg from "pg";
import type { Principal } from "../../domain/access";
import { type CommandResult, conflict } from "../../domain/command-result";
import type { TaskStatus } from "../../domain/task-states";
import { appendLedger, taskStream } from "../ledger/append-ledger";
import { moneyToolsOf, resumeStep, reviewPreview } from "../review/preview";
import { bulkField } from "./bulk-principal";
import { reviewSpan } from "./review-span";
import {
  expectRows,
  lockTaskFor,
  notifyWorkers,
  requeueReviewed,
  taskTransaction,
} from "./task-guard";
import { type ReviewOutcome, twoPersonGate } from "./two-person";

export type ApproveInput = {
  taskId: string;
  version: number;
  note?: string;
  /**
   * What the caller's button said: approve a parked effect, or resume a dead task. Without it
   * the task's state decides (the API's and the CLI's one `approve`).
   */
  action?: "approve" | "resume";
  /** Set by the bulk runner: the bulk action this resume is part of. */
  bulkId?: string;
};

type PendingApproval = {
  id: number;
  effect_key: string;
  fingerprint: string;
  tool: string;
  money: boolean;
  first_approved_by: string | null;
};

export const approveTask = reviewSpan((input) => input.action ?? "approve", approveTaskUntraced);

async function approveTaskUntraced(
  pool: pg.Pool,
  principal: Principal,
  input: ApproveInput,
): Promise<CommandResult<ReviewOutcome>> {
  const actor = principal.actor;
  return taskTransaction(pool, async (client): Promise<CommandResult<ReviewOutcome>> => {
    const locked = await lockTaskFor(
      client,
      principal,
      input.taskId,
      input.version,
      (status) => input.action ?? (status === "dead" ? "resume" : "approve"),
    );
    if ("error" in locked) return locked.error;
    const { task } = locked;
    const pending = await client.query<PendingApproval>(
      `select id, effect_key, fingerprint, tool, money, first_approved_by from approvals
       where task_id = $1 and status = 'pending' order by id for update`,
      [task.id],
    );
    const flags = await moneyToolsOf(client, task);
    const money = pending.rows.filter((a) => a.money || flags.money.has(a.tool));

    let confirms: { requestId: number; requestedBy: string; requestedAt: string } | null = null;
    let firstApprovedBy: string[] = [];
    if (task.status === "dead") {
      const fromStep = await resumeStep(client, task.id);
      const preview = await reviewPreview(client, task, "approve", fromStep);
      const gate = await twoPersonGate(
        client,
        task,
        "approve",
        fromStep,
        preview,
        actor,
        undefined,
        input.bulkId,
      );
      if (!gate.run) return gate.result;
      confirms = gate.confirms;
      if (confirms) {
        // The requester is the first of the two people on any money approval it carries.
        await client.query(
          `update approvals set first_approved_by = $2, first_approved_at = $3
           where id = any($1::bigint[]) and first_approved_by is null`,
          [money.map((a) => a.id), confirms.requestedBy, confirms.requestedAt],
        );
        firstApprovedBy = [confirms.requestedBy];
      }
    } else if (money.length > 0) {
      const first = await firstOfTwo(client, task, money, actor, input.note, input.bulkId);
      if (first) return first;
      firstApprovedBy = [...new Set(money.map((a) => a.first_approved_by ?? ""))];
    }

    const approved = await client.query<{
      id: number;
      effect_key: string;
      fingerprint: string;
      tool: string;
    }>(
      `update approvals set status = 'approved', decided_by = $2, decided_at = now(), reason = $3
       where task_id = $1 and status = 'pending'
       returning id, effect_key, fingerprint, tool`,
      [task.id, actor, input.note ?? null],
    );
    // A dead task resumes with a fresh attempt budget; a parked one keeps its count.
    const version = await requeueReviewed(client, task, task.status === "dead");
    await appendLedger(client, taskStream(task.id), {
      kind: "review.approved",
      actor,
      taskId: task.id,
      data: {
        from: task.status,
        deadReason: task.dead_reason,
        note: input.note ?? null,
        approvals: approved.rows.map((a) => ({
          id: Number(a.id),
          key: a.effect_key,
          fingerprint: a.fingerprint,
          tool: a.tool,
        })),
        ...(firstApprovedBy.length > 0 ? { firstApprovedBy } : {}),
        ...(confirms ? { twoPerson: { ...confirms, confirmedBy: actor } } : {}),
        ...bulkField(input.bulkId),
      },
    });
    await notifyWorkers(client, task.id);
    return {
      ok: true,
      value: { id: task.id, status: "queued" satisfies TaskStatus, version, waitingFor: null },
    };
  });
}

/**
 * The first yes on money approvals is recorded and the task stays parked; the same person's
 * second yes is refused. Returns null when a different reviewer may now approve.
 */
async function firstOfTwo(
  client: pg.PoolClient,
  task: { id: string; status: TaskStatus; version: number },
  money: PendingApproval[],
  actor: string,
  note: string | undefined,
  bulkId: string | undefined,
): Promise<CommandResult<ReviewOutcome> | null> {
  const open = money.filter((a) => a.first_approved_by === null);
  if (open.length === 0) {
    const mine = money.find((a) => a.first_approved_by === actor);
    return mine
      ? conflict(
          `a second, different reviewer must approve: ${actor} gave the first approval of ${mine.tool}`,
        )
      : null;
  }
  const { rows } = await client.query<{ at: Date }>(
    `update approvals set first_approved_by = $2, first_approved_at = now()
     where id = any($1::bigint[]) and first_approved_by is null returning first_approved_at as at`,
    [open.map((a) => a.id), actor],
  );
  // `open` is never empty here, so neither is the stamp.
  const [stamp] = expectRows(rows, open.length, `task ${task.id}'s approvals`);
  await appendLedger(client, taskStream(task.id), {
    kind: "review.first_approved",
    actor,
    taskId: task.id,
    data: {
      stage: "first",
      needsSecondReviewer: true,
      note: note ?? null,
      approvals: open.map((a) => ({
        id: Number(a.id),
        key: a.effect_key,
        fingerprint: a.fingerprint,
        tool: a.tool,
      })),
      ...bulkField(bulkId),
    },
  });
  return {
    ok: true,
    value: {
      id: task.id,
      status: task.status,
      version: task.version,
      waitingFor: {
        kind: "approval",
        requestId: null,
        requestedBy: actor,
        requestedAt: (stamp?.at ?? new Date()).toISOString(),
      },
    },
  };
}
