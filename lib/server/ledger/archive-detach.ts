// The one sanctioned removal from the ledger (issue 23, archive phase 2): a month's partition of
// ledger_entries goes once every stream opened in that month is archived and frozen. The
// database function ledger_detach_month (migration 0055) refuses anything else; this module
// finds the months it may take, takes each in its own transaction, and appends the
// ledger.detached system entry naming the month, what it held and the archives that hold it now.
import type pg from "pg";
import { type SqlClient, withTransaction } from "../../../db/client";
import { ARCHIVED_KIND, DETACHED_KIND, type DetachedEntryData } from "../../domain/archive";
import { appendLedger, SYSTEM_STREAM } from "./append-ledger";

/** A month partition every stream of which is archived, and what it holds. */
export type DetachableMonth = { month: string; streams: number; entries: number };

export type DetachedMonth = DetachableMonth & { archives: string[]; systemSeq: number };

/** The months detached, and why the rest were not when one failed (they stay for the next run). */
export type DetachOutcome = { detached: DetachedMonth[]; detachError?: string };

/**
 * Months before the current UTC month (no stream opens in them any more) whose partition is
 * still attached and whose every stream is archived. Month partitions only: the unarchivable
 * one (the system and bulk streams) and the default one are never taken.
 */
const DETACHABLE = `
  with parts as (
    select to_date(substr(c.relname, 17, 4) || substr(c.relname, 22, 2), 'YYYYMM') as month
      from pg_inherits i
      join pg_class c on c.oid = i.inhrelid
     where i.inhparent = 'ledger_entries'::regclass
       and c.relname ~ '^ledger_entries_y[0-9]{4}m[0-9]{2}$'
  )
  select to_char(p.month, 'YYYY-MM') as month, count(s.stream)::int as streams,
         coalesce(sum(s.head_seq), 0)::bigint as entries
    from parts p
    join ledger_streams s on s.month = p.month
   where p.month < date_trunc('month', now() at time zone 'UTC')::date
   group by p.month
  having bool_and(s.archived_in is not null)
   order by p.month`;

export async function detachableMonths(client: SqlClient): Promise<DetachableMonth[]> {
  const { rows } = await client.query<{ month: string; streams: number; entries: string }>(
    DETACHABLE,
  );
  return rows.map((r) => ({ month: r.month, streams: r.streams, entries: Number(r.entries) }));
}

export type DetachOptions = {
  actor: string;
  lockTimeoutMs?: number;
};

/**
 * Detaches and drops every detachable month, oldest first, each in a transaction of its own
 * that also appends its ledger.detached entry. The detach waits for the transactions reading or
 * writing the ledger at that moment, and appends queue behind it, so it gives up after
 * `lockTimeoutMs` rather than stall every writer (the month stays; the next run takes it).
 */
export async function detachArchivedMonths(
  pool: pg.Pool,
  opts: DetachOptions,
): Promise<DetachOutcome> {
  const detached: DetachedMonth[] = [];
  for (const m of await detachableMonths(pool)) {
    try {
      detached.push(await detachMonth(pool, m, opts));
    } catch (err) {
      return { detached, detachError: err instanceof Error ? err.message : String(err) };
    }
  }
  return { detached };
}

async function detachMonth(
  pool: pg.Pool,
  m: DetachableMonth,
  opts: DetachOptions,
): Promise<DetachedMonth> {
  return withTransaction(pool, async (client) => {
    await client.query(`set local lock_timeout = ${Math.trunc(opts.lockTimeoutMs ?? 5000)}`);
    const { rows: archives } = await client.query<{ archive_id: string }>(
      `select distinct archived_in::text as archive_id from ledger_streams
            where month = $1::date order by 1`,
      [`${m.month}-01`],
    );
    // First the detach (the lock on the whole table), then the system append: the other
    // way round, an appender holding the table and waiting for the system head would
    // deadlock with it.
    const { rows } = await client.query<{ entries: string }>(
      "select ledger_detach_month($1::date)::text as entries",
      [`${m.month}-01`],
    );
    const ids = archives.map((a) => a.archive_id);
    const { rows: statements } = await client.query<{ archive_id: string; digest: string }>(
      `select data->>'archiveId' as archive_id, data->>'statementDigest' as digest
             from ledger_entries
            where stream = $1 and kind = $2 and data->>'archiveId' = any($3::text[])`,
      [SYSTEM_STREAM, ARCHIVED_KIND, ids],
    );
    const data: DetachedEntryData = {
      month: m.month,
      streams: m.streams,
      entries: Number(rows[0]?.entries ?? 0),
      archives: ids.map((archiveId) => ({
        archiveId,
        statementDigest: statements.find((s) => s.archive_id === archiveId)?.digest ?? null,
      })),
    };
    const [entry] = await appendLedger(client, SYSTEM_STREAM, {
      kind: DETACHED_KIND,
      actor: opts.actor,
      data,
    });
    return { ...m, entries: data.entries, archives: ids, systemSeq: entry?.seq ?? 0 };
  });
}

/**
 * The months detached so far, from the ledger.detached entries of the system stream (whose chain
 * the verifier checks): a stream archived and opened in one of them has no entries left, by
 * design; any other stream without its entries lost them.
 */
export async function detachedMonthsOf(client: SqlClient): Promise<string[]> {
  const { rows } = await client.query<{ month: string }>(
    `select distinct data->>'month' as month from ledger_entries
      where stream = $1 and kind = $2 and data->>'month' is not null order by 1`,
    [SYSTEM_STREAM, DETACHED_KIND],
  );
  return rows.map((r) => r.month);
}

/** SQL: the ledger_streams row `s` is archived and its month detached (`$n`: detachedMonthsOf). */
export const detachedStream = (param: number) =>
  `(s.archived_in is not null and to_char(s.month, 'YYYY-MM') = any($${param}::text[]))`;

/**
 * Streams marked archived must be the streams an archive recorded: for each archive id on
 * ledger_streams, a ledger.archived entry in the (verified) system stream naming as many
 * streams. A mark set by hand (which would let a month be detached with no archive holding
 * it) or a stream added to an archive's mark afterwards shows up here.
 */
export async function unrecordedArchives(
  client: SqlClient,
): Promise<{ archiveId: string; streams: number; recorded: number | null }[]> {
  const { rows } = await client.query<{
    archive_id: string;
    streams: number;
    recorded: number | null;
  }>(
    `with marks as (
       select archived_in::text as archive_id, count(*)::int as streams from ledger_streams
        where archived_in is not null group by 1
     ), recorded as (
       select data->>'archiveId' as archive_id, max((data->>'streams')::int) as streams
         from ledger_entries where stream = $1 and kind = $2 group by 1
     )
     select m.archive_id, m.streams, r.streams as recorded
       from marks m left join recorded r using (archive_id)
      where r.streams is distinct from m.streams
      order by 1 limit 100`,
    [SYSTEM_STREAM, ARCHIVED_KIND],
  );
  return rows.map((r) => ({ archiveId: r.archive_id, streams: r.streams, recorded: r.recorded }));
}
