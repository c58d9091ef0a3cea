// An entry as one JSON line, shared by `agent-ledger export --format jsonl` and the archive's
// entries file, so the two can never drift apart. `data` is the jsonb as PostgreSQL prints it:
// what is stored, no trip through JS numbers.
import type { EntryRow } from "./chain-check";

/** An entry with its jsonb as text (select ENTRY_TEXT_COLUMNS). */
export type EntryTextRow = Omit<EntryRow, "data"> & { data: string };

export const ENTRY_TEXT_COLUMNS =
  "id, stream, seq, at, kind, actor, task_id, key, data::text as data, prev_hash, hash";

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
