// What "fix the input and replay" would do, read inside the caller's transaction: the replay
// preview from the chosen step, the input's changes, and for each effect from that step whether
// its key is expected to change (and so act) or stay (and deduplicate). The correction command
// records exactly this; the task screen shows it before the reviewer confirms.
import type { SqlClient } from "../../../db/client";
import { type CorrectionPlan, planCorrection } from "../../domain/correction-plan";
import type { JsonValue } from "../../domain/json";
import type { ReviewPreview } from "../../domain/replay-plan";
import { taskStream } from "../ledger/append-ledger";
import { reviewPreview } from "./preview";

export type CorrectionPreview = ReviewPreview & { correction: CorrectionPlan };

export async function correctionPreview(
  client: SqlClient,
  task: { id: string; agent: string; input: JsonValue },
  after: JsonValue,
  fromStep: number,
): Promise<CorrectionPreview> {
  const preview = await reviewPreview(client, task, "replay", fromStep);
  const { rows } = await client.query<{
    step: number;
    tool: string;
    key: string;
    status: "succeeded" | "failed" | "started";
    intent: JsonValue;
  }>(
    `select step_seq as step, tool, key, status, intent from effects
     where task_id = $1 and step_seq >= $2 order by step_seq, created_at, key`,
    [task.id, fromStep],
  );
  const correction = planCorrection(task.id, task.input, after, rows);
  // An effect whose key changes is a new effect: it acts, and if it moves money two people
  // must agree, whatever the plain replay would have said about its old key.
  const changed = new Set(correction.effects.filter((e) => e.outcome === "act").map((e) => e.key));
  const effects = preview.effects.map((e) =>
    changed.has(e.key) && !e.acts ? { ...e, acts: true } : e,
  );
  const reasons = [...preview.reasons];
  for (const e of correction.effects) {
    const money = preview.moneyTools.includes(e.tool);
    if (money && e.keyChanges) {
      reasons.push(
        `${e.tool} (step ${e.step}) moves money and its intent changes with the input: a new key, it acts`,
      );
    }
  }
  return {
    ...preview,
    effects,
    reasons: [...new Set(reasons)],
    twoPerson: reasons.length > 0,
    correction,
  };
}

/**
 * The note a first reviewer gave with the correction they asked a second one to confirm, from
 * their review.requested entry: the confirmer reads it, and the correction entry keeps it.
 */
export async function requestNote(
  client: SqlClient,
  taskId: string,
  requestId: number,
): Promise<string | null> {
  const { rows } = await client.query<{ note: string | null }>(
    `select data -> 'correction' ->> 'note' as note from ledger_entries
     where stream = $1 and kind = 'review.requested' and data ->> 'requestId' = $2
     order by seq desc limit 1`,
    [taskStream(taskId), String(requestId)],
  );
  return rows[0]?.note ?? null;
}
