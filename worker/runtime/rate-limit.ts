// Tool rate limits across every worker: one statement takes a slot in the tool's bucket or says
// how long until one frees. The bucket's row lock serializes racing workers, and under READ
// COMMITTED the conflict's WHERE is checked again on the latest row, so no window of `periodMs`
// ever holds more than `limit` stamps.
import type { SqlClient } from "../../db/client";
import type { RateLimitSpec } from "../../lib/domain/rate-limit";

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
