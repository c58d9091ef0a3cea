// What one attempt's effects run with (EffectRunner), and the results it holds for the task's
// next statement (DeferredResults): recorded together, oldest first, by recordDeferred.
import type pg from "pg";
import { retryOnConnectionError } from "../../db/retry";
import type { JsonValue } from "../../lib/domain/json";
import type { RateLimitSpec } from "../../lib/domain/rate-limit";
import type { HeadRef } from "../../lib/server/ledger/append-known-head";
import type { EffectBatchers, EffectResult } from "./effect-batch";

export type EffectRunner = {
  pool: pg.Pool;
  worker: string;
  taskId: string;
  attempt: number;
  /** How long an effect's claim lasts before it counts as outcome unknown. */
  effectLeaseMs: number;
  signal: AbortSignal;
  /** The task stream's head as this attempt last wrote it. */
  head: HeadRef;
  /** The worker's group commit of effect claims and results. */
  effects: EffectBatchers;
  /** Results this attempt has and has not recorded yet. */
  deferred: DeferredResults;
  /** Admins' tool rate limits by tool, read with the claim; they win over the code's. */
  toolLimits?: ReadonlyMap<string, RateLimitSpec>;
};

/**
 * Effect results held for the task's next statement. Closed once the attempt's run is over: a
 * tool still running then (the run timed out, or did not await it) records its result at once,
 * or the heartbeat would keep its claim alive without end.
 */
export type DeferredResults = {
  open: boolean;
  items: EffectResult[];
  /** The recording under way: parallel steps of one attempt wait for it, not past it. */
  recording?: Promise<boolean>;
};

/**
 * Records every deferred result, oldest first, each retried through a database outage, after
 * any recording already under way. False when the task's lease was gone: the results are
 * recorded all the same (each is a fact, whoever holds the task now), but the attempt must stop.
 */
export function recordDeferred(run: Pick<EffectRunner, "deferred" | "effects">): Promise<boolean> {
  const { deferred } = run;
  const recordAll = async () => {
    let leased = true;
    for (let item = deferred.items.shift(); item; item = deferred.items.shift()) {
      const result = item;
      const ours = await retryOnConnectionError(({ inDoubt }) =>
        run.effects.record({ ...result, inDoubt }),
      );
      leased = ours && leased;
    }
    return leased;
  };
  const next = (deferred.recording ?? Promise.resolve(true)).catch(() => true).then(recordAll);
  deferred.recording = next;
  return next;
}

export type EntryFn = (
  kind: string,
  data: Record<string, JsonValue>,
) => { kind: string; actor: string; taskId: string; key: string; data: JsonValue };
