// The inbox's counts, for the sidebar on every page and the inbox's own header: what waits for a
// person, per kind, and what the viewer can move on; with what the list (list-inbox.ts) judges
// its items by too: the confirmations waiting, and whether an item needs this viewer.
import type pg from "pg";
import { type Principal, principalOf, requireScope, type Viewer } from "../../domain/access";
import { ALERT_DELIVERY_AGENT } from "../../domain/alerts";
import type { BulkAction } from "../../domain/bulk-actions";
import { AGENT_INBOX_KINDS, type InboxKind } from "../../domain/inbox-kinds";
import {
  allowedActions,
  allowedNames,
  type TaskAction,
  type TaskFacts,
} from "../../domain/task-actions";
import type { TaskStatus } from "../../domain/task-states";
import { mayConfirmBulk } from "./inbox-bulks";
import { countSystemDead, countTasks } from "./table-counts";

export type InboxCountsDto = {
  /** Everything waiting, per kind and in all. */
  waiting: Record<InboxKind, number>;
  total: number;
  /** What the viewer can move on, per kind and in all (the sidebar's number). */
  forYou: Record<InboxKind, number>;
  forYouTotal: number;
  /** How many of the confirmations are whole bulk actions (the rest are tasks). */
  bulksWaiting: number;
};

/** The task action a second reviewer's confirmation is (what the first one asked for). */
function confirmAction(
  request: { action: "replay" | "approve" } | null,
  status: TaskStatus,
): TaskAction {
  if (request?.action === "replay") return "replay";
  return status === "dead" ? "resume" : "approve";
}

/** What the table lets the viewer do to this task now (never cancel: that is not triage). */
export function reviewActions(task: TaskFacts, principal: Principal): TaskAction[] {
  return allowedNames(allowedActions(task, principal)).filter((a) => a !== "cancel");
}

export function needsYou(
  kind: InboxKind,
  task: TaskFacts,
  firstBy: string | null,
  request: { action: "replay" | "approve" } | null,
  principal: Principal,
): boolean {
  if (kind !== "confirmation") return reviewActions(task, principal).length > 0;
  if (firstBy === principal.actor) return false;
  return allowedActions(task, principal)[confirmAction(request, task.status)].allowed;
}

/**
 * Confirmations: pending requests on the task's current version (an older one no longer
 * counts), and pending money approvals with a first yes on tasks without such a request. Small
 * by nature (each is a person's half-done decision) and read from partial indexes.
 */
export const CONFIRMATIONS = `
  requests as (
    select r.task_id, r.requested_by as first_by, r.requested_at as since, r.action,
           case when jsonb_typeof(r.params -> 'fromStep') = 'number'
                then (r.params ->> 'fromStep')::int end as from_step,
           null::text as tool
    from review_requests r join tasks t on t.id = r.task_id and t.version = r.task_version
    where r.status = 'pending' and t.agent <> '${ALERT_DELIVERY_AGENT}'
  ),
  first_yes as (
    select distinct on (a.task_id) a.task_id, a.first_approved_by as first_by,
           a.first_approved_at as since, 'approve'::text as action, null::int as from_step, a.tool
    from approvals a join tasks t on t.id = a.task_id
    where a.status = 'pending' and a.first_approved_by is not null
      and t.agent <> '${ALERT_DELIVERY_AGENT}'
      and not exists (select 1 from requests q where q.task_id = a.task_id)
    order by a.task_id, a.first_approved_at, a.id
  ),
  confirmations as (select * from requests union all select * from first_yes)`;

/** The sidebar's counts: for every page, so indexed counts only, never a list. */
export async function countInbox(pool: pg.Pool, viewer: Viewer | null): Promise<InboxCountsDto> {
  const principal = principalOf(requireScope(viewer, "tasks:read"));
  const client = await pool.connect();
  try {
    await client.query("begin isolation level repeatable read read only");
    return await readCounts(client, principal);
  } finally {
    await client.query("rollback").catch(() => undefined);
    client.release();
  }
}

const zero = (): Record<InboxKind, number> => ({
  confirmation: 0,
  approval: 0,
  unknown_outcome: 0,
  dead_letter: 0,
  system: 0,
});

/**
 * Dead and parked tasks are counted by the status counters the writes keep (status_counts, one
 * statement whatever the backlog; counting them read 40k index entries per render at 10M); the
 * few confirmations are read as rows and taken out of the kind their task would otherwise be
 * counted under.
 */
export async function readCounts(
  client: pg.PoolClient,
  principal: Principal,
): Promise<InboxCountsDto> {
  const tasks = await countTasks(client);
  const confirmations = await client.query<{
    status: TaskStatus;
    unknown: boolean;
    first_by: string;
    action: "replay" | "approve";
  }>(
    `with ${CONFIRMATIONS}
     select t.status, coalesce(t.dead_reason = 'outcome_unknown', false) as unknown, c.first_by, c.action
     from confirmations c join tasks t on t.id = c.task_id
     where t.status in ('dead', 'awaiting_approval')`,
  );

  // The product's own dead tasks: taken out of the kinds they would otherwise be counted under.
  const system = await countSystemDead(client);

  const waiting = zero();
  waiting.unknown_outcome = tasks.deadByReason.outcome_unknown;
  waiting.dead_letter = tasks.byStatus.dead.count - waiting.unknown_outcome;
  waiting.approval = tasks.byStatus.awaiting_approval.count;
  for (const [reason, n] of Object.entries(system)) {
    waiting[reason === "outcome_unknown" ? "unknown_outcome" : "dead_letter"] -= n;
    waiting.system += n;
  }
  const forYou = zero();
  for (const r of confirmations.rows) {
    const otherwise: InboxKind =
      r.status === "awaiting_approval" ? "approval" : r.unknown ? "unknown_outcome" : "dead_letter";
    waiting[otherwise] -= 1;
    waiting.confirmation += 1;
    if (needsYou("confirmation", { status: r.status }, r.first_by, r, principal))
      forYou.confirmation += 1;
  }
  // A money bulk waiting for its second reviewer is one confirmation, however many tasks it holds.
  const bulks = await client.query<{ action: BulkAction; requested_by: string; n: number }>(
    `select action, requested_by, count(*)::int as n from bulk_actions
     where status = 'awaiting_second' group by 1, 2`,
  );
  let bulksWaiting = 0;
  for (const r of bulks.rows) {
    bulksWaiting += r.n;
    waiting.confirmation += r.n;
    if (mayConfirmBulk(r.action, r.requested_by, principal)) forYou.confirmation += r.n;
  }
  // Whether the viewer may act on a dead or parked task: resume, reject and approve need no
  // fact, so the status and the viewer's scopes decide it.
  for (const kind of ["dead_letter", "unknown_outcome"] as const) {
    if (reviewActions({ status: "dead" }, principal).length > 0) forYou[kind] = waiting[kind];
  }
  if (reviewActions({ status: "awaiting_approval" }, principal).length > 0)
    forYou.approval = waiting.approval;

  // The total and the sidebar are the agents' work; `system` is its own count.
  const sum = (r: Record<InboxKind, number>) => AGENT_INBOX_KINDS.reduce((n, k) => n + r[k], 0);
  return { waiting, total: sum(waiting), forYou, forYouTotal: sum(forYou), bulksWaiting };
}
