// What "replay from step N" would do, read before anyone confirms it: the journaled steps from
// N that run again, and for each effect already keyed at or after N whether the replay would
// return its stored result (dedupe) or act. The replay command shows this same preview and
// records it in the ledger, so the reviewer's screen and the record agree.
import type { SqlClient } from "../../../db/client";

export type ReplayEffect = {
  step: number;
  tool: string;
  key: string;
  status: "succeeded" | "failed" | "started";
  /** dedupe: returns the stored result, provided the replay reaches it with the same intent. */
  outcome: "dedupe" | "act" | "outcome_unknown" | "in_flight";
  /** A step re-run before it (a model call or computation) may change its arguments. */
  mayChange: boolean;
};

export type ReplayPreview = {
  fromStep: number;
  rerun: { seq: number; kind: string; name: string }[];
  effects: ReplayEffect[];
};

export type ReplayStepInput = { seq: number; kind: string; name: string };

export type ReplayEffectInput = {
  stepSeq: number;
  tool: string;
  key: string;
  status: ReplayEffect["status"];
  /** The effect's lease is still running on the database clock (another worker is on it). */
  live: boolean;
};

/** The preview from rows already read, e.g. by a screen that shows the whole task. */
export function planReplay(
  steps: readonly ReplayStepInput[],
  effects: readonly ReplayEffectInput[],
  fromStep: number,
): ReplayPreview {
  const rerun = steps
    .filter((s) => s.seq >= fromStep)
    .sort((a, b) => a.seq - b.seq)
    .map((s) => ({ seq: s.seq, kind: s.kind, name: s.name }));
  // Tool results and sleeps come back as they were; a model call or computation may not.
  const firstChanging = rerun.find((s) => s.kind !== "tool" && s.kind !== "sleep")?.seq;
  return {
    fromStep,
    rerun,
    effects: effects
      .filter((e) => e.stepSeq >= fromStep)
      .sort((a, b) => a.stepSeq - b.stepSeq)
      .map((e) => ({
        step: e.stepSeq,
        tool: e.tool,
        key: e.key,
        status: e.status,
        outcome:
          e.status === "succeeded"
            ? "dedupe"
            : e.status === "failed"
              ? "act"
              : e.live
                ? "in_flight"
                : "outcome_unknown",
        mayChange: firstChanging !== undefined && firstChanging < e.stepSeq,
      })),
  };
}

/** The preview read inside the caller's transaction (the replay command's, or a read-only one). */
export async function previewReplay(
  client: SqlClient,
  taskId: string,
  fromStep: number,
): Promise<ReplayPreview> {
  const steps = await client.query<ReplayStepInput>(
    "select seq, kind, name from steps where task_id = $1 and seq >= $2 order by seq",
    [taskId, fromStep],
  );
  const effects = await client.query<ReplayEffectInput>(
    `select step_seq as "stepSeq", tool, key, status, coalesce(lease_expires_at > now(), false) as live
     from effects where task_id = $1 and step_seq >= $2 order by step_seq, created_at, key`,
    [taskId, fromStep],
  );
  return planReplay(steps.rows, effects.rows, fromStep);
}
