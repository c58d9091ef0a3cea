// The dead-letter triage list: dead tasks matching the screen's filter (reason, fingerprint,
// agent, tool, age), newest dead first, keyset-paginated on (status_changed_at, id), with how
// many match in all (what "select all N matching this filter" acts on) and the db-clock instant
// the page was read at.
import { type SQL, sql } from "drizzle-orm";
import { tasks } from "../../../db/schema";
import { requireScope, type Viewer } from "../../domain/access";
import type { DeadReason } from "../../domain/task-states";
import {
  type DeadLetterSearch,
  deadLetterWhere,
  errorMessageSql,
  fingerprintSql,
  lastToolSql,
} from "../review/dead-letter-filter";
import type { DbReader } from "./db-reader";

export const DEAD_LETTERS_PAGE_SIZE = 50;

export type DeadTaskDto = {
  id: string;
  agent: string;
  reason: DeadReason;
  /** First 300 characters of the last error's message, if any. */
  lastError: string | null;
  fingerprint: string;
  /** The tool of its last journaled tool step, if any. */
  tool: string | null;
  attempts: number;
  /** The version a bulk action of explicitly chosen rows acts on. */
  version: number;
  deadSince: string;
  ageSeconds: number;
};

export type DeadTaskPageDto = {
  tasks: DeadTaskDto[];
  /** Every dead task matching the filter (all pages). */
  matching: number;
  /** Pass as `before` for the next page; null on the last. */
  olderBefore: string | null;
  /** The database clock when this page was read. */
  asOf: string;
};

type Row = {
  id: string;
  agent: string;
  reason: DeadReason;
  last_error: string | null;
  fingerprint: string;
  tool: string | null;
  attempts: number;
  version: number;
  dead_since: string;
  cursor_at: string;
  age_seconds: number;
};

export async function listDeadLetterTasks(
  db: DbReader,
  viewer: Viewer | null,
  search: DeadLetterSearch,
  pageSize = DEAD_LETTERS_PAGE_SIZE,
  /** A further condition on tasks: a bulk action's page lists only its frozen set. */
  within?: SQL,
): Promise<DeadTaskPageDto> {
  requireScope(viewer, "tasks:read");
  const where = within ? sql`${deadLetterWhere(search)} and ${within}` : deadLetterWhere(search);
  const after = search.before
    ? sql` and (${tasks.statusChangedAt}, ${tasks.id}) < (${search.before.at}::timestamptz, ${search.before.id}::uuid)`
    : sql``;
  const { rows } = await db.execute<Row>(sql`
    select ${tasks.id} as id, ${tasks.agent} as agent, ${tasks.deadReason} as reason,
           left(${errorMessageSql}, 300) as last_error, ${fingerprintSql} as fingerprint,
           ${lastToolSql} as tool, ${tasks.attempts} as attempts, ${tasks.version} as version,
           to_char(${tasks.statusChangedAt} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as dead_since,
           to_char(${tasks.statusChangedAt} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as cursor_at,
           greatest(0, extract(epoch from now() - ${tasks.statusChangedAt}))::float8 as age_seconds
    from ${tasks}
    where ${where}${after}
    order by ${tasks.statusChangedAt} desc, ${tasks.id} desc
    limit ${pageSize + 1}`);
  const counted = await db.execute<{ matching: number; as_of: string }>(sql`
    select count(*)::int as matching,
           to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as as_of
    from ${tasks} where ${where}`);
  const page = rows.slice(0, pageSize);
  const last = page.at(-1);
  return {
    tasks: page.map((r) => ({
      id: r.id,
      agent: r.agent,
      reason: r.reason,
      lastError: r.last_error,
      fingerprint: r.fingerprint,
      tool: r.tool,
      attempts: r.attempts,
      version: r.version,
      deadSince: r.dead_since,
      ageSeconds: r.age_seconds,
    })),
    matching: counted.rows[0]?.matching ?? 0,
    olderBefore: rows.length > pageSize && last ? `${last.cursor_at}_${last.id}` : null,
    asOf: counted.rows[0]?.as_of ?? new Date().toISOString(),
  };
}
