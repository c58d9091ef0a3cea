// The dead-letter triage screen's groups: dead tasks by reason, then by error fingerprint (the
// message with ids, numbers and quoted values normalised, lib/domain/error-fingerprint), with
// counts, the oldest and newest, and a sample message. Ages come from the database clock. The
// product's own dead tasks (alert deliveries) are left out unless asked for: they are triaged
// per destination (list-failing-destinations.ts), not as the agents' dead letters.
import { type SQL, sql } from "drizzle-orm";
import { tasks } from "../../../db/schema";
import { requireScope, type Viewer } from "../../domain/access";
import { ALERT_DELIVERY_AGENT } from "../../domain/alerts";
import { DEAD_REASONS, type DeadReason } from "../../domain/task-states";
import { errorMessageSql, fingerprintSql } from "../review/dead-letter-filter";
import type { DbReader } from "./db-reader";

/** Error groups shown per reason; the rest are summed into `otherErrors`. */
export const ERRORS_PER_REASON = 5;

export type DeadLetterErrorDto = {
  /** The error fingerprint the group is; "" when the tasks recorded no error. */
  fingerprint: string;
  /** The group's oldest message (first 300 characters); null when no error was recorded. */
  message: string | null;
  count: number;
  oldestAt: string;
  newestAt: string;
};

export type DeadLetterGroupDto = {
  reason: DeadReason;
  count: number;
  oldestAt: string | null;
  /** Seconds the oldest task in this group has been dead. */
  oldestAgeSeconds: number | null;
  newestAt: string | null;
  errors: DeadLetterErrorDto[];
  /** Tasks whose error is not among `errors`. */
  otherErrors: number;
};

export type DeadLettersDto = {
  total: number;
  /** Every reason, zeros included, in the order DEAD_REASONS lists them. */
  groups: DeadLetterGroupDto[];
  asOf: string;
};

const iso = (expr: SQL) =>
  sql`to_char(${expr} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

type ErrorRow = {
  reason: DeadReason;
  fingerprint: string;
  message: string | null;
  count: number;
  oldest_at: string;
  newest_at: string;
  oldest_age_seconds: number;
  rank: number;
  as_of: string;
};

export async function listDeadLetters(
  db: DbReader,
  viewer: Viewer | null,
  opts: { includeSystem?: boolean } = {},
): Promise<DeadLettersDto> {
  requireScope(viewer, "tasks:read");
  const skipSystem = !opts.includeSystem;
  const own = skipSystem ? sql` and ${tasks.agent} <> ${ALERT_DELIVERY_AGENT}` : sql``;
  // Counts, oldest and newest come from tasks_dead_groups_idx alone (40k dead tasks at 10M read
  // their heap pages when the sample message was an aggregate); only the groups shown fetch one.
  // The product's own dead tasks are counted from tasks_dead_agent_idx (few) and taken out; only
  // a group that holds both kinds reads its oldest and newest again without them.
  const { rows } = await db.execute<ErrorRow>(sql`
    with every_group as (
      select ${tasks.deadReason} as reason,
             ${fingerprintSql} as fingerprint,
             count(*)::int as count,
             min(${tasks.statusChangedAt}) as oldest,
             max(${tasks.statusChangedAt}) as newest
      from ${tasks}
      where ${tasks.status} = 'dead'
      group by 1, 2
    ), system_group as (
      select ${tasks.deadReason} as reason, ${fingerprintSql} as fingerprint, count(*)::int as n
      from ${tasks}
      where ${skipSystem} and ${tasks.status} = 'dead' and ${tasks.agent} = ${ALERT_DELIVERY_AGENT}
      group by 1, 2
    ), grouped as (
      select g.reason, g.fingerprint, g.count - coalesce(s.n, 0) as count,
             case when s.n is null then g.oldest else (
               select min(${tasks.statusChangedAt}) from ${tasks}
               where ${tasks.status} = 'dead' and ${tasks.deadReason} = g.reason
                 and ${fingerprintSql} = g.fingerprint${own}) end as oldest,
             case when s.n is null then g.newest else (
               select max(${tasks.statusChangedAt}) from ${tasks}
               where ${tasks.status} = 'dead' and ${tasks.deadReason} = g.reason
                 and ${fingerprintSql} = g.fingerprint${own}) end as newest
      from every_group g
      left join system_group s on s.reason = g.reason and s.fingerprint = g.fingerprint
      where g.count > coalesce(s.n, 0)
    ), ranked as (
      select *, row_number() over (partition by reason order by count desc, oldest)::int as rank
      from grouped
    )
    select r.reason, r.fingerprint, r.count, r.rank,
           case when r.rank <= ${ERRORS_PER_REASON} then (
             select left(${errorMessageSql}, 300) from ${tasks}
             where ${tasks.status} = 'dead' and ${tasks.deadReason} = r.reason
               and ${fingerprintSql} = r.fingerprint${own}
             order by ${tasks.statusChangedAt}
             limit 1
           ) end as message,
           ${iso(sql`r.oldest`)} as oldest_at,
           ${iso(sql`r.newest`)} as newest_at,
           extract(epoch from now() - r.oldest)::float8 as oldest_age_seconds,
           ${iso(sql`now()`)} as as_of
    from ranked r
    order by r.reason, r.rank`);

  const groups = DEAD_REASONS.map((reason): DeadLetterGroupDto => {
    const mine = rows.filter((r) => r.reason === reason);
    const oldest = mine.reduce<ErrorRow | undefined>(
      (acc, r) => (acc === undefined || r.oldest_age_seconds > acc.oldest_age_seconds ? r : acc),
      undefined,
    );
    const newest = mine.reduce<string | null>(
      (acc, r) => (acc === null || r.newest_at > acc ? r.newest_at : acc),
      null,
    );
    const shown = mine.filter((r) => r.rank <= ERRORS_PER_REASON);
    const count = mine.reduce((sum, r) => sum + r.count, 0);
    return {
      reason,
      count,
      oldestAt: oldest?.oldest_at ?? null,
      oldestAgeSeconds: oldest === undefined ? null : Math.max(0, oldest.oldest_age_seconds),
      newestAt: newest,
      errors: shown.map((r) => ({
        fingerprint: r.fingerprint,
        message: r.message,
        count: r.count,
        oldestAt: r.oldest_at,
        newestAt: r.newest_at,
      })),
      otherErrors: count - shown.reduce((sum, r) => sum + r.count, 0),
    };
  });

  return {
    total: groups.reduce((sum, g) => sum + g.count, 0),
    groups,
    asOf: rows[0]?.as_of ?? new Date().toISOString(),
  };
}
