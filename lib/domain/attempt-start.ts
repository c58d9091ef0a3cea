// An attempt's start as the ledger records it, in either of its two forms: an `attempt.started`
// entry of its own (every ledger written before the start was folded keeps these forever), or
// `data.attemptStarted` on the attempt's first entry, whatever that entry's kind (an
// effect.started, a task.succeeded, or the worker.lost the reaper wrote for an attempt that
// wrote nothing). Every reader of attempts goes through attemptStartOf, so both forms read alike.
import { type EntryLike, isoOf, numberOf, recordOf, stringOf } from "./loose-read";

/** The kind of the older, separate form. */
export const ATTEMPT_STARTED_KIND = "attempt.started";
/** The key of the folded form in an entry's data. */
export const ATTEMPT_START_KEY = "attemptStarted";

/** What the folded form holds (`actor` only when not the entry's own actor, e.g. the reaper's). */
export type AttemptStartData = {
  attempt: number;
  agent: string;
  version?: string;
  /** ISO 8601: the claim's time, not the entry's. */
  at: string;
  actor?: string;
};

export type AttemptStart = {
  attempt: number | null;
  agent: string | null;
  version: string | null;
  /** ISO 8601: when the attempt was claimed. */
  at: string;
  /** Who ran it (`worker:<id>`). */
  actor: string;
};

/** The attempt an entry starts, in either form; null when it starts none. */
export function attemptStartOf(e: EntryLike): AttemptStart | null {
  const data = recordOf(e.data);
  const folded = recordOf(data?.[ATTEMPT_START_KEY]);
  const source = e.kind === ATTEMPT_STARTED_KIND ? (data ?? {}) : folded;
  if (!source) return null;
  const at = e.kind === ATTEMPT_STARTED_KIND ? isoOf(e.at) : (stringOf(source.at) ?? isoOf(e.at));
  return {
    attempt: numberOf(source.attempt),
    agent: stringOf(source.agent),
    version: stringOf(source.version),
    at,
    actor: stringOf(source.actor) ?? e.actor ?? "",
  };
}

/** `data` with the attempt's start folded in (the entry then starts the attempt too). */
export function withAttemptStart(data: unknown, start: AttemptStartData): Record<string, unknown> {
  return { ...(recordOf(data) ?? {}), [ATTEMPT_START_KEY]: start };
}

/** The folded form of a start, from what the claim (or the task row) knows. */
export function attemptStartData(args: {
  attempt: number;
  agent: string;
  version?: string | null;
  at: Date | string;
  actor?: string;
}): AttemptStartData {
  return {
    attempt: args.attempt,
    agent: args.agent,
    ...(args.version ? { version: args.version } : {}),
    at: isoOf(args.at),
    ...(args.actor ? { actor: args.actor } : {}),
  };
}
