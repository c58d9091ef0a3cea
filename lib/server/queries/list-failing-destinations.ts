// The product's own undelivered alerts, one line per destination (alert rule): "alerts to
// <host> failing since T, N undelivered". Dead alert-delivery tasks are triaged here, apart
// from the agents' dead letters: when a receiver is down every alert dead-letters, and N dead
// letters of one cause would bury the agents' work. The destination is its host only (a Slack
// URL's path and a webhook's query string are credentials); the URL and secret never leave.
import { sql } from "drizzle-orm";
import { requireScope, type Viewer } from "../../domain/access";
import { ALERT_DELIVERY_AGENT, destinationHost } from "../../domain/alerts";
import type { DbReader } from "./db-reader";

export type FailingDestinationDto = {
  /** The rule the deliveries were for (it may have been deleted since: then `name` is null). */
  ruleId: string;
  name: string | null;
  destination: "slack" | "webhook" | null;
  /** Host (and port) only. */
  host: string | null;
  /** Dead deliveries of this rule. */
  undelivered: number;
  /** ISO 8601, UTC: when the oldest of them dead-lettered. */
  since: string;
  /** The newest one's error message, first 300 characters (the webhook tool's own words). */
  lastError: string | null;
};

export type FailingDestinationsDto = {
  /** Every dead alert delivery (the sum of the lines). */
  undelivered: number;
  destinations: FailingDestinationDto[];
};

type Row = {
  rule_id: string;
  name: string | null;
  destination: string | null;
  url: string | null;
  undelivered: number;
  since: string;
  last_error: string | null;
};

/** Read in the caller's snapshot (its counts and these lines agree). */
export async function listFailingDestinations(
  db: DbReader,
  viewer: Viewer | null,
): Promise<FailingDestinationsDto> {
  requireScope(viewer, "tasks:read");
  // tasks_dead_agent_idx holds exactly these rows; a few hundred at worst, one per alert.
  const { rows } = await db.execute<Row>(sql`
    with dead as (
      select t.input ->> 'ruleId' as rule_id, t.status_changed_at,
             left(coalesce(t.last_error ->> 'message', t.last_error #>> '{}'), 300) as message
      from tasks t
      where t.status = 'dead' and t.agent = ${ALERT_DELIVERY_AGENT}
    ), grouped as (
      select rule_id, count(*)::int as undelivered, min(status_changed_at) as since,
             (array_agg(message order by status_changed_at desc))[1] as last_error
      from dead group by rule_id
    )
    select g.rule_id, r.name, r.destination, r.url, g.undelivered, g.last_error,
           to_char(g.since at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as since
    from grouped g
    left join alert_rules r on r.id::text = g.rule_id
    order by g.undelivered desc, g.since, g.rule_id`);
  const destinations = rows.map(
    (r): FailingDestinationDto => ({
      ruleId: r.rule_id,
      name: r.name,
      destination: r.destination === "slack" || r.destination === "webhook" ? r.destination : null,
      host: r.url === null ? null : destinationHost(r.url),
      undelivered: r.undelivered,
      since: r.since,
      lastError: r.last_error,
    }),
  );
  return { undelivered: destinations.reduce((n, d) => n + d.undelivered, 0), destinations };
}
