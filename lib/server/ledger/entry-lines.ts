// An entry as one JSON line, shared by `agent-ledger export --format jsonl` and the archive's
// entries file, so the two can never drift apart. `data` is the jsonb as PostgreSQL prints it:
// what is stored, no trip through JS numbers.
import type { EntryRow } from "./chain-check";
import { prevHashSql } from "./prev-hash";

/** An entry with its jsonb as text, and the hash it chains onto (select ENTRY_TEXT_COLUMNS). */
export type EntryTextRow = Omit<EntryRow, "data"> & { data: string; prev_hash: string | null };

/** The columns of an entry read `from ledger_entries e`. */
export const ENTRY_TEXT_COLUMNS = `e.id, e.stream, e.seq, e.at, e.kind, e.actor, e.task_id, e.key, e.data::text as data, ${prevHashSql("e")} as prev_hash, e.hash`;

export function entryJsonLine(r: EntryTextRow): string {
  const head = JSON.stringify({
    id: Number(r.id),
    stream: r.stream,
    seq: Number(r.seq),
    at: r.at.toISOString(),
    kind: r.kind,
    actor: r.actor,
    taskId: r.task_id,
    key: r.key,
  });
  return `${head.slice(0, -1)},"data":${r.data},"prevHash":${JSON.stringify(r.prev_hash)},"hash":${JSON.stringify(r.hash)}}\n`;
}
