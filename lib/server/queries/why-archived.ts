// "Why?" for a task whose entries the database no longer holds (issue 23): its streams read from
// the archive's files (archived-entries.ts), and what why.ts reads from ledger_entries — the
// effect's recorded result, the entries carrying its key, the task's attempt and review entries,
// the model decision before the first claim — taken from those entries the same way.

import type { LedgerEntryRow } from "../../../db/schema";
import { attemptStartOf } from "../../domain/attempt-start";
import type { JsonValue } from "../../domain/json";
import { taskStream } from "../ledger/append-ledger";
import type { EntryRow } from "../ledger/chain-check";
import {
  type ArchiveConfig,
  type ArchivedDto,
  type ArchivedStream,
  archivedStream,
} from "./archived-entries";
import type { DbReader } from "./db-reader";
import { payload } from "./payloads";
import { WHY_TASK_EVENTS_LIMIT } from "./why-schema";
import type { EventRow } from "./why-story";

type Marked = {
  id: string;
  archivedIn: string | null;
  archivedAt: Date | null;
  headSeq: number | null;
  headHash: string | null;
};

/** Each task's archive mark, and for those read from the files, their entries, by task id. */
export async function archivedStreams(
  db: DbReader,
  tasks: readonly Marked[],
  config: ArchiveConfig,
): Promise<Map<string, ArchivedStream>> {
  const out = new Map<string, ArchivedStream>();
  for (const t of tasks) out.set(t.id, await archivedStream(db, taskStream(t.id), t, config));
  return out;
}

export const archivedOfTask = (
  streams: ReadonlyMap<string, ArchivedStream>,
  taskId: string,
): ArchivedDto | null => streams.get(taskId)?.archived ?? null;

/** The entries of every task read from files. */
function fileEntries(streams: ReadonlyMap<string, ArchivedStream>): EntryRow[] {
  return [...streams.values()].flatMap((s) => s.files ?? []);
}

const toRow = (e: EntryRow): LedgerEntryRow => ({
  id: Number(e.id),
  stream: e.stream,
  seq: Number(e.seq),
  at: e.at,
  kind: e.kind,
  actor: e.actor,
  taskId: e.task_id,
  key: e.key,
  data: e.data,
  prevHash: e.prev_hash ?? null,
  hash: e.hash,
});

/** The entries carrying one of `keys` among the tasks read from files. */
export function archivedKeyed(
  streams: ReadonlyMap<string, ArchivedStream>,
  keys: readonly string[],
): LedgerEntryRow[] {
  const wanted = new Set(keys);
  return fileEntries(streams)
    .filter((e) => e.key !== null && wanted.has(e.key))
    .map(toRow);
}

const resultOf = (data: JsonValue): JsonValue | null =>
  typeof data === "object" && data !== null && !Array.isArray(data) ? (data.result ?? null) : null;

/**
 * The effects' results as the files recorded them, for effects of tasks read from files (the
 * database query found none): the latest effect.succeeded or outcome.resolved wins.
 */
export function withArchivedResults<
  E extends { key: string; taskId: string; status: string; result: JsonValue | null },
>(effects: E[], streams: ReadonlyMap<string, ArchivedStream>, visible: boolean): E[] {
  return effects.map((effect) => {
    const files = streams.get(effect.taskId)?.files;
    if (!files || effect.status !== "succeeded") return effect;
    const last = files.findLast(
      (e) =>
        e.key === effect.key && (e.kind === "effect.succeeded" || e.kind === "outcome.resolved"),
    );
    return { ...effect, result: payload(visible, last ? resultOf(last.data) : null) };
  });
}

const toEvent = (e: EntryRow): EventRow => ({
  id: Number(e.id),
  seq: Number(e.seq),
  at: e.at,
  kind: e.kind,
  actor: e.actor,
  key: e.key,
  data: e.data,
});

/** The latest attempt and review entries of each task read from files, as loadTaskEvents gives them. */
export function addArchivedEvents(
  events: Map<string, { rows: EventRow[]; truncated: boolean }>,
  streams: ReadonlyMap<string, ArchivedStream>,
  kinds: readonly string[],
): void {
  for (const [taskId, s] of streams) {
    if (!s.files) continue;
    const matching = s.files.filter((e) => kinds.includes(e.kind) || attemptStartOf(e) !== null);
    if (matching.length === 0) continue;
    events.set(taskId, {
      rows: matching.slice(-WHY_TASK_EVENTS_LIMIT).map(toEvent),
      truncated: matching.length > WHY_TASK_EVENTS_LIMIT,
    });
  }
}

/** As loadDecisions for effects of tasks read from files. */
export function addArchivedDecisions(
  decisions: Map<string, EventRow>,
  effects: readonly { key: string; taskId: string; stepSeq: number }[],
  streams: ReadonlyMap<string, ArchivedStream>,
): void {
  for (const effect of effects) {
    const files = streams.get(effect.taskId)?.files;
    if (!files) continue;
    const firstClaim = files.find((e) => e.key === effect.key)?.seq ?? Number.POSITIVE_INFINITY;
    const decision = files.findLast((e) => {
      if (e.kind !== "model.called" || e.seq >= firstClaim) return false;
      const step =
        typeof e.data === "object" && e.data !== null && !Array.isArray(e.data)
          ? e.data.step
          : undefined;
      return typeof step === "number" && step < effect.stepSeq;
    });
    if (decision) decisions.set(effect.key, toEvent(decision));
  }
}
