// The step journal of one task: completed steps are read once per attempt, and each newly
// completed step is written in one statement that also proves we still hold the lease.
import type { SqlClient } from "../../db/client";
import type { JsonValue } from "../../lib/domain/json";
import type { StepKind } from "../../lib/domain/task-states";

export type JournaledStep = {
  seq: number;
  kind: StepKind;
  name: string;
  result: JsonValue;
  effectKey: string | null;
};

export async function loadJournal(
  client: SqlClient,
  taskId: string,
): Promise<Map<number, JournaledStep>> {
  const { rows } = await client.query<{
    seq: number;
    kind: StepKind;
    name: string;
    result: JsonValue;
    effect_key: string | null;
  }>({
    name: "runtime_load_journal",
    text: `select seq, kind, name, result, effect_key from steps
           where task_id = $1 and status = 'completed' order by seq`,
    values: [taskId],
  });
  return new Map(
    rows.map((r) => [
      r.seq,
      { seq: r.seq, kind: r.kind, name: r.name, result: r.result, effectKey: r.effect_key },
    ]),
  );
}

/** Writes a completed step if the task is still leased to `worker`; false means the lease is gone. */
export async function journalStep(
  client: SqlClient,
  worker: string,
  taskId: string,
  attempt: number,
  step: JournaledStep,
): Promise<boolean> {
  const { rows } = await client.query<{ seq: number }>({
    name: "runtime_journal_step",
    text: `with lease as (
             select id from tasks where id = $1 and lease_owner = $2 and status = 'running' for share
           )
           insert into steps (task_id, seq, kind, name, status, result, effect_key, attempt, completed_at)
           select $1, $3, $4, $5, 'completed', $6, $7, $8, now() from lease
           on conflict (task_id, seq) do update
             set kind = excluded.kind, name = excluded.name, status = 'completed', result = excluded.result,
                 effect_key = excluded.effect_key, attempt = excluded.attempt, completed_at = excluded.completed_at
           returning seq`,
    values: [
      taskId,
      worker,
      step.seq,
      step.kind,
      step.name,
      JSON.stringify(step.result),
      step.effectKey,
      attempt,
    ],
  });
  return rows.length === 1;
}

/** The lease check alone, for transactions that write no step. */
export async function holdsLease(
  client: SqlClient,
  worker: string,
  taskId: string,
): Promise<boolean> {
  const { rows } = await client.query({
    name: "runtime_holds_lease",
    text: "select 1 from tasks where id = $1 and lease_owner = $2 and status = 'running' for share",
    values: [taskId, worker],
  });
  return rows.length === 1;
}
