// ledger_entries is partitioned by its streams' month (migration 0055). Appends never wait for
// a partition (a default one takes what no month's does), but a month's entries can leave only
// from a partition of its own, so each month's is made ahead of time.
import type { SqlClient } from "../../../db/client";

/** How many months past the current one have their partition made ahead. */
export const PARTITION_MONTHS_AHEAD = 2;

/** Makes the missing monthly partitions through PARTITION_MONTHS_AHEAD; returns how many. */
export async function ensureLedgerPartitions(client: SqlClient): Promise<number> {
  const { rows } = await client.query<{ made: number }>({
    name: "ledger_ensure_partitions",
    text: `select ledger_ensure_partitions(
             ((now() at time zone 'UTC')::date + make_interval(months => $1))::date) as made`,
    values: [PARTITION_MONTHS_AHEAD],
  });
  return rows[0]?.made ?? 0;
}
