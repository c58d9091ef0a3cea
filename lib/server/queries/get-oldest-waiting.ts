// The oldest thing waiting for a person, per kind of wait: a dead letter, an approval, a
// second reviewer's confirmation (two-person rule), an effect whose outcome nobody knows. Each
// is one walk of the partial index that holds exactly the waiting rows, so the answer costs the
// same with ten waiting or ten thousand.
import type { SqlClient } from "../../../db/client";
import { ALERT_DELIVERY_AGENT } from "../../domain/alerts";
import { DEAD_REASONS } from "../../domain/task-states";

export const WAITING_KINDS = [
  "dead_letter",
  "approval",
  "second_reviewer",
  "unknown_outcome",
] as const;
export type WaitingKind = (typeof WAITING_KINDS)[number];

export type WaitingItemDto = {
  taskId: string;
  agent: string;
  /** Since when it waits, ISO 8601. */
  since: string;
  /** What it waits on, in a few words (a reason, a tool). */
  detail: string;
};

export type WaitingDto = { kind: WaitingKind; count: number; oldest: WaitingItemDto | null };

type Row = { task_id: string; agent: string; since: Date; detail: string };

const item = (row: Row | undefined): WaitingItemDto | null =>
  row
    ? { taskId: row.task_id, agent: row.agent, since: row.since.toISOString(), detail: row.detail }
    : null;

/** `deadTotal` and `unknownTotal` are already counted by the caller's snapshot. */
export async function readOldestWaiting(
  client: SqlClient,
  totals: { dead: number; outcomeUnknown: number },
): Promise<WaitingDto[]> {
  // tasks_dead_idx leads with the reason: one ordered probe per reason, then the oldest of those.
  const dead = await client.query<Row>({
    text: `select t.id as task_id, t.agent, t.status_changed_at as since, t.dead_reason as detail
             from unnest($1::text[]) as r(reason)
            cross join lateral (
              select id, agent, status_changed_at, dead_reason from tasks
               where status = 'dead' and dead_reason = r.reason and agent <> $2
               order by status_changed_at, id limit 1
            ) t
            order by t.status_changed_at, t.id limit 1`,
    // The agents' dead letters: the product's own (alert deliveries) are counted apart.
    values: [[...DEAD_REASONS], ALERT_DELIVERY_AGENT],
  });

  // approvals_pending_idx: pending approvals by requested_at. A money approval with a first yes
  // waits for a second, different reviewer, not for a first one.
  const approvals = await client.query<Row & { second: boolean; n: number }>(
    `with pending as (
       select a.task_id, a.tool, a.requested_at, a.first_approved_at, a.first_approved_by is not null as second
         from approvals a where a.status = 'pending'
     ), oldest as (
       select distinct on (p.second) p.task_id, p.second, p.tool as detail,
              coalesce(p.first_approved_at, p.requested_at) as since
         from pending p order by p.second, coalesce(p.first_approved_at, p.requested_at), p.task_id
     )
     select o.task_id, t.agent, o.since, o.detail, o.second,
            (select count(*)::int from pending p where p.second = o.second) as n
       from oldest o join tasks t on t.id = o.task_id`,
  );
  // review_requests_pending_idx holds exactly the pending two-person requests.
  const requests = await client.query<Row & { n: number }>(
    `select r.task_id, t.agent, r.requested_at as since, r.action as detail,
            count(*) over ()::int as n
       from review_requests r join tasks t on t.id = r.task_id
      where r.status = 'pending'
      order by r.requested_at, r.id limit 1`,
  );
  // effects_started_lease_idx: started effects by lease expiry; expired (or never leased) means
  // nobody knows: the same rule as the count, so a count never shows without its oldest.
  const unknown = await client.query<Row>(
    `select e.task_id, t.agent, coalesce(e.lease_expires_at, e.updated_at) as since, e.tool as detail
       from effects e join tasks t on t.id = e.task_id
      where e.status = 'started' and not coalesce(e.lease_expires_at > now(), false)
      order by e.lease_expires_at limit 1`,
  );

  const firstApproval = approvals.rows.find((r) => !r.second);
  const secondApproval = approvals.rows.find((r) => r.second);
  const request = requests.rows[0];
  const second = [secondApproval, request]
    .filter((r): r is NonNullable<typeof r> => r !== undefined)
    .sort((a, b) => a.since.getTime() - b.since.getTime())[0];
  return [
    { kind: "dead_letter", count: totals.dead, oldest: item(dead.rows[0]) },
    { kind: "approval", count: firstApproval?.n ?? 0, oldest: item(firstApproval) },
    {
      kind: "second_reviewer",
      count: (secondApproval?.n ?? 0) + (request?.n ?? 0),
      oldest: item(second),
    },
    { kind: "unknown_outcome", count: totals.outcomeUnknown, oldest: item(unknown.rows[0]) },
  ];
}
