// The inbox: everything waiting for a person, in one list, oldest first — dead letters,
// approvals, second-reviewer confirmations (a pending two-person request or a money approval
// with its first yes) and unknown outcomes — and the cheap counts the sidebar shows on every
// page. Each task is in the inbox once, under the most specific kind: a dead task someone asked
// to replay waits for a confirmation, not for triage. What the viewer may do comes from the
// task-actions table, given each task's facts; waits from the database clock. The product's own
// dead tasks (alert deliveries) are apart: out of the total and the other kinds, counted as
// `system`, listed only under ?kind=system and summed per destination. Pages of INBOX_LIMIT
// follow each other by a cursor (?after=), oldest first.
import { drizzle } from "drizzle-orm/node-postgres";
import type pg from "pg";
import { z } from "zod";
import * as schema from "../../../db/schema";
import { principalOf, requireScope, type Viewer } from "../../domain/access";
import { ALERT_DELIVERY_AGENT } from "../../domain/alerts";
import { BULK_ACTIONS, BULK_TASK_ACTION } from "../../domain/bulk-actions";
import { AGENT_INBOX_KINDS, INBOX_KINDS, type InboxKind } from "../../domain/inbox-kinds";
import { pagePositionSchema } from "../../domain/page-position";
import { refusalOf, type TaskAction, type TaskFacts } from "../../domain/task-actions";
import type { DeadReason, TaskStatus } from "../../domain/task-states";
import { TASK_FACT_SQL } from "../review/task-facts";
import { type InboxBulkDto, readPendingBulks } from "./inbox-bulks";
import {
  CONFIRMATIONS,
  type InboxCountsDto,
  needsYou,
  readCounts,
  reviewActions,
} from "./inbox-counts";
import { listDeadLetters } from "./list-dead-letters";
import { type FailingDestinationsDto, listFailingDestinations } from "./list-failing-destinations";

export { AGENT_INBOX_KINDS, INBOX_KINDS, type InboxKind };

/** The most items one page holds; `nextAfter` leads to the next. */
export const INBOX_LIMIT = 100;

/** A page position: (waiting since, task id) of the last item shown. */
const cursorSchema = pagePositionSchema(
  "is not a page position from the inbox; use the links below the list.",
);

export const inboxSearchSchema = z.object({
  kind: z
    .enum(INBOX_KINDS, {
      error: `must be one of ${INBOX_KINDS.join(", ")} (or left out for everything).`,
    })
    .optional(),
  /** Items waiting since after this position (the previous page's last item). */
  after: cursorSchema.optional(),
});
export type InboxSearch = z.output<typeof inboxSearchSchema>;

export type InboxItemDto = {
  kind: InboxKind;
  taskId: string;
  agent: string;
  status: TaskStatus;
  deadReason: DeadReason | null;
  /** The last error's message (up to 300 characters), for dead letters. */
  lastError: string | null;
  /** The gated tool, for approvals and money approvals. */
  tool: string | null;
  /** For a confirmation: who asked first, and for what. */
  firstBy: string | null;
  request: { action: "replay" | "approve"; fromStep: number | null } | null;
  /** ISO 8601, UTC: since when it has waited for a person. */
  since: string;
  waitedSeconds: number;
  /** The review actions the viewer may take now (never cancel: that is not triage). */
  actions: TaskAction[];
  /**
   * The viewer can move it on: for a confirmation, they may confirm and are not the one who
   * asked; otherwise they may take one of `actions`.
   */
  needsYou: boolean;
};

/** A money bulk action frozen by one reviewer, waiting for a different one to confirm it whole. */
/** A dead-letter error group (reason → fingerprint) big enough to triage in one bulk action. */
export type InboxErrorGroupDto = {
  reason: DeadReason;
  /** The error fingerprint ("" when the tasks recorded no error). */
  fingerprint: string;
  /** The group's oldest message, first 300 characters. */
  message: string | null;
  count: number;
  oldestAt: string;
};

/** Error groups shown above the items: the largest, at least this many tasks each. */
export const INBOX_GROUPS = 5;
export const INBOX_GROUP_MIN = 2;

export type InboxDto = {
  /** One page, oldest first: INBOX_LIMIT at most. */
  items: InboxItemDto[];
  /** The page's position (null: the first page). */
  after: string | null;
  /** Pass as `after` for the next page; null on the last. */
  nextAfter: string | null;
  /** The product's own undelivered alerts, one line per destination (same snapshot). */
  alerts: FailingDestinationsDto;
  /** Bulk actions waiting for a second reviewer (confirmations too; listed before the tasks). */
  bulks: InboxBulkDto[];
  /**
   * The largest dead-letter error groups (not unknown outcomes: each of those is resolved
   * alone), each a way into the dead-letter list filtered to it and its bulk actions. Empty
   * under a filter other than dead letters.
   */
  errorGroups: InboxErrorGroupDto[];
  /**
   * The viewer may take a bulk action on dead tasks (the task-actions table): each error group
   * then offers its whole set selected on the dead-letter list.
   */
  mayBulkTriage: boolean;
  /** How many tasks match the filter (all pages); more than items.length past INBOX_LIMIT. */
  matching: number;
  counts: InboxCountsDto;
  kind: InboxKind | null;
  asOf: string;
};

type ItemRow = {
  kind: InboxKind;
  task_id: string;
  agent: string;
  status: TaskStatus;
  dead_reason: DeadReason | null;
  last_error: string | null;
  tool: string | null;
  first_by: string | null;
  action: "replay" | "approve" | null;
  from_step: number | null;
  since: Date;
  waited: number;
  cursor_at: string;
  unknown_outcome: boolean;
  pending_request: boolean;
};

// Each kind is its own page, oldest first on its index (tasks_dead_at_idx backwards, and
// tasks_awaiting_at_idx), with the kind filter and the page position inside it, and the pages are
// merged: one union sorted whole read every dead and waiting task per call (5k rows at 1M
// entries). Confirmations are taken out of the others by an array, not an anti-join, so the
// index order holds. $1 kind, $2 page size + 1, $3/$4 the position (null: from the oldest).
// The facts the task-actions table asks for are read for the page's items only.
const AFTER = (since: string) =>
  `($3::timestamptz is null or (${since}, t.id) > ($3::timestamptz, $4::uuid))`;
const ITEMS = `
  with ${CONFIRMATIONS},
  items as (
    (select 'confirmation' as kind, t.id as task_id, t.agent, t.status, t.dead_reason,
            left(coalesce(t.last_error ->> 'message', t.last_error #>> '{}'), 300) as last_error,
            c.tool, c.first_by, c.action, c.from_step, c.since
     from confirmations c join tasks t on t.id = c.task_id
     where t.status in ('dead', 'awaiting_approval')
       and ($1::text is null or $1::text = 'confirmation') and ${AFTER("c.since")}
     order by c.since, t.id
     limit $2)
    union all
    (select case when t.dead_reason = 'outcome_unknown' then 'unknown_outcome' else 'dead_letter' end,
            t.id, t.agent, t.status, t.dead_reason,
            left(coalesce(t.last_error ->> 'message', t.last_error #>> '{}'), 300),
            null, null, null, null, t.status_changed_at
     from tasks t
     where t.status = 'dead' and t.agent <> '${ALERT_DELIVERY_AGENT}'
       and t.id <> all (array(select c.task_id from confirmations c))
       and ($1::text is null
            or ($1::text in ('unknown_outcome', 'dead_letter')
                and $1::text = case when t.dead_reason = 'outcome_unknown' then 'unknown_outcome' else 'dead_letter' end))
       and ${AFTER("t.status_changed_at")}
     order by t.status_changed_at, t.id
     limit $2)
    union all
    (select 'approval', t.id, t.agent, t.status, t.dead_reason, null,
            (select a.tool from approvals a where a.task_id = t.id and a.status = 'pending'
             order by a.requested_at, a.id limit 1),
            null, null, null, t.status_changed_at
     from tasks t
     where t.status = 'awaiting_approval'
       and t.id <> all (array(select c.task_id from confirmations c))
       and ($1::text is null or $1::text = 'approval') and ${AFTER("t.status_changed_at")}
     order by t.status_changed_at, t.id
     limit $2)
    union all
    (select 'system', t.id, t.agent, t.status, t.dead_reason,
            left(coalesce(t.last_error ->> 'message', t.last_error #>> '{}'), 300),
            null, null, null, null, t.status_changed_at
     from tasks t
     where t.status = 'dead' and t.agent = '${ALERT_DELIVERY_AGENT}' and $1::text = 'system'
       and ${AFTER("t.status_changed_at")}
     order by t.status_changed_at, t.id
     limit $2)
  ),
  page as (select * from items order by since, task_id limit $2)
  select p.*, extract(epoch from now() - p.since)::float8 as waited,
         to_char(p.since at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as cursor_at,
         ${TASK_FACT_SQL.unknownOutcome("p.task_id")} as unknown_outcome,
         ${TASK_FACT_SQL.pendingRequest("p.task_id")} as pending_request
  from page p
  order by p.since, p.task_id`;

/** Everything waiting, oldest first, with what the viewer may do about each. */
export async function listInbox(
  pool: pg.Pool,
  viewer: Viewer | null,
  search: InboxSearch,
): Promise<InboxDto> {
  const principal = principalOf(requireScope(viewer, "tasks:read"));
  const client = await pool.connect();
  try {
    // One snapshot: the list and its counts agree.
    await client.query("begin isolation level repeatable read read only");
    const { rows } = await client.query<ItemRow>(ITEMS, [
      search.kind ?? null,
      INBOX_LIMIT + 1,
      search.after?.at ?? null,
      search.after?.id ?? null,
    ]);
    const counts = await readCounts(client, principal);
    const alerts = await listFailingDestinations(drizzle(client, { schema }), viewer);
    const bulks =
      search.kind === undefined || search.kind === "confirmation"
        ? await readPendingBulks(client, principal, INBOX_LIMIT)
        : [];
    const errorGroups =
      search.kind === undefined || search.kind === "dead_letter"
        ? await readErrorGroups(client, viewer)
        : [];
    const { rows: now } = await client.query<{ now: Date }>("select now()");
    const page = rows.slice(0, INBOX_LIMIT);
    const last = page.at(-1);
    const items = page.map((r): InboxItemDto => {
      const facts: TaskFacts = {
        status: r.status,
        unknownOutcome: r.unknown_outcome,
        pendingRequest: r.pending_request,
      };
      const request =
        r.kind === "confirmation" && r.action
          ? { action: r.action, fromStep: r.action === "replay" ? r.from_step : null }
          : null;
      return {
        kind: r.kind,
        taskId: r.task_id,
        agent: r.agent,
        status: r.status,
        deadReason: r.dead_reason,
        lastError: r.last_error,
        tool: r.tool,
        firstBy: r.first_by,
        request,
        since: r.since.toISOString(),
        waitedSeconds: Math.max(0, r.waited),
        actions: reviewActions(facts, principal),
        needsYou: needsYou(r.kind, facts, r.first_by, request, principal),
      };
    });
    const taskCount = search.kind ? counts.waiting[search.kind] : counts.total;
    const bulksCounted =
      search.kind === undefined || search.kind === "confirmation" ? counts.bulksWaiting : 0;
    return {
      items,
      after: search.after ? `${search.after.at}_${search.after.id}` : null,
      nextAfter: rows.length > INBOX_LIMIT && last ? `${last.cursor_at}_${last.task_id}` : null,
      alerts,
      bulks,
      errorGroups,
      mayBulkTriage: BULK_ACTIONS.some(
        (a) => refusalOf(BULK_TASK_ACTION[a], "dead", principal) === null,
      ),
      matching: taskCount - bulksCounted,
      counts,
      kind: search.kind ?? null,
      asOf: (now[0]?.now ?? new Date()).toISOString(),
    };
  } finally {
    await client.query("rollback").catch(() => undefined);
    client.release();
  }
}

/** The dead-letter screen's groups, read in the inbox's snapshot, the largest few across reasons. */
async function readErrorGroups(
  client: pg.PoolClient,
  viewer: Viewer | null,
): Promise<InboxErrorGroupDto[]> {
  const dead = await listDeadLetters(drizzle(client, { schema }), viewer);
  return dead.groups
    .filter((g) => g.reason !== "outcome_unknown")
    .flatMap((g) =>
      g.errors.map((e) => ({
        reason: g.reason,
        fingerprint: e.fingerprint,
        message: e.message,
        count: e.count,
        oldestAt: e.oldestAt,
      })),
    )
    .filter((g) => g.count >= INBOX_GROUP_MIN)
    .sort((a, b) => b.count - a.count || a.oldestAt.localeCompare(b.oldestAt))
    .slice(0, INBOX_GROUPS);
}
