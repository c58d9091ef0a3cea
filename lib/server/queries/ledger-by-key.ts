// Where an effect's entries are found without an index of their own (migration 0056 dropped
// ledger_entries_key_idx, 408 bytes of WAL per job): every entry with a key is on its task's
// stream (the key is derived from the task id), which the (stream, seq) key every append writes
// anyway finds. The task is named by the key's effect row or, for an approval asked before the
// effect ever ran, by the approval's; neither effects nor approvals are ever deleted.
import { type SQL, sql } from "drizzle-orm";
import { ledgerEntries } from "../../../db/schema";

const e = ledgerEntries;

/**
 * The entries that record an effect's result: ledger_entries_result_key_idx (migration 0058)
 * holds exactly these, by key, so a reader asking for them with `kind in RESULT_KINDS` and a
 * key finds them without walking the task's stream.
 */
export const RESULT_KINDS = ["effect.succeeded", "outcome.resolved"];

/**
 * The entries carrying the key of an effect where `onEffects` holds, or of an approval where
 * `onApprovals` does (each a condition on its own table's columns): those on the stream of the
 * key's task, by the (stream, seq) key. An effect's approvals are of its task: `onApprovals`
 * need only find the keys of effects that never ran.
 */
export function keyedEntries(onEffects: SQL, onApprovals: SQL): SQL {
  return sql`(${e.stream}, ${e.key}) in (
    select 'task:' || task_id::text, key from effects where ${onEffects}
    union all
    select 'task:' || task_id::text, effect_key from approvals where ${onApprovals})`;
}

/** The entries carrying `key`. */
export function entriesOfKey(key: string): SQL {
  return keyedEntries(sql`key = ${key}`, sql`effect_key = ${key}`);
}
