// The hash an entry chains onto, for readers that show it (the API, exports, archive files).
// An entry does not store it (migration 0062): it is the hash of the entry before it in its
// stream, or GENESIS_HASH at seq 1. Walks in seq order (verify) chain on what they just read.
import { GENESIS_HASH } from "../../domain/hash";

/**
 * SQL for the hash the entry named `entry` (a table alias, or "ledger_entries") chains onto:
 * one probe of the (stream, seq) key in the entry's own partition; null when the entry before
 * it is gone (a damaged ledger, which verify names).
 */
export function prevHashSql(entry: string): string {
  return `case when ${entry}.seq = 1 then '${GENESIS_HASH}' else (select p.hash from ledger_entries p where p.stream = ${entry}.stream and p.month = ${entry}.month and p.seq = ${entry}.seq - 1) end`;
}
