// Tool rate limits across every worker: one statement takes a slot in the tool's bucket or says
// how long until one frees. The bucket's row lock serializes racing workers, and under READ
// COMMITTED the conflict's WHERE is checked again on the latest row, so no window of `periodMs`
// ever holds more than `limit` stamps.
import type { SqlClient } from "../../db/client";
import { MAX_RATE_LIMIT_PERIOD_MS, type RateLimitSpec } from "../../lib/domain/rate-limit";

/** The slot taken (`at`, by the database's clock), or how long until the oldest stamp leaves the window. */
export type SlotAnswer = { granted: true; at: Date } | { granted: false; waitMs: number };

export async function takeRateLimitSlot(
  client: SqlClient,
  bucket: string,
  spec: RateLimitSpec,
): Promise<SlotAnswer> {
  // The stamps are kept oldest first, at most `limit` of them (a limit lowered since keeps the
  // newest; one raised grants until the array fills). clock_timestamp, read after the row
  // lock, keeps them in order whichever transaction started first.
  const { rows } = await client.query<{ at: Date }>({
    name: "runtime_take_rate_limit_slot",
    text: `insert into rate_limits as r (bucket, stamps) values ($1, array[clock_timestamp()])
           on conflict (bucket) do update
             set stamps = r.stamps[greatest(cardinality(r.stamps) - $2 + 2, 1):] || clock_timestamp()
             where cardinality(r.stamps) < $2
                or r.stamps[cardinality(r.stamps) - $2 + 1] <= clock_timestamp() - $3 * interval '1 millisecond'
           returning r.stamps[cardinality(r.stamps)] as at`,
    values: [bucket, spec.limit, spec.periodMs],
  });
  const taken = rows[0];
  if (taken) return { granted: true, at: taken.at };
  const wait = await client.query<{ wait_ms: number }>({
    name: "runtime_rate_limit_wait",
    text: `select greatest(1, ceil(extract(epoch from
                    r.stamps[greatest(cardinality(r.stamps) - $2 + 1, 1)] + $3 * interval '1 millisecond' - clock_timestamp()
                  ) * 1000))::int as wait_ms
           from rate_limits r where bucket = $1`,
    values: [bucket, spec.limit, spec.periodMs],
  });
  return { granted: false, waitMs: wait.rows[0]?.wait_ms ?? 1 };
}

/**
 * Deletes up to `limit` buckets whose newest stamp is older than the longest period a limit may
 * have: no window can count such a stamp any more, so the bucket is as good as absent, and a
 * later take just inserts it again. The age test is repeated on the deleted row itself, so a
 * take that stamps the bucket while this runs wins: under READ COMMITTED the delete waits for
 * its row lock and checks the condition again on the latest row, which is no longer idle.
 */
export async function purgeIdleRateLimits(client: SqlClient, limit: number): Promise<number> {
  const { rowCount } = await client.query({
    name: "runtime_purge_idle_rate_limits",
    text: `delete from rate_limits r
           where r.bucket = any(array(
                   select bucket from rate_limits
                   where coalesce((select max(s) from unnest(stamps) s), '-infinity')
                         < now() - $1 * interval '1 millisecond'
                   limit $2))
             and coalesce((select max(s) from unnest(r.stamps) s), '-infinity')
                 < now() - $1 * interval '1 millisecond'`,
    values: [MAX_RATE_LIMIT_PERIOD_MS, limit],
  });
  return rowCount ?? 0;
}
