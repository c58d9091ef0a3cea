// The step journal of one task: completed steps are read with the claim (task-sql.ts), and each
// newly completed step is written in one statement that also proves we still hold the lease.
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

/**
 * The lease-guarded journal write as two CTEs, `lease` and `journaled` (one row when written),
 * with its 8 values numbered from $`after + 1`: a statement of its own here, or part of one that
 * also records an effect's result and appends the step's entries.
 */
export function journalStepCtes(after: number): string {
  const p = (i: number) => `$${after + i}`;
  return `lease as (
             select id from tasks where id = ${p(1)} and lease_owner = ${p(2)} and status = 'running' for share
           ), journaled as (
             insert into steps (task_id, seq, kind, name, status, result, effect_key, attempt, completed_at)
             select ${p(1)}, ${p(3)}, ${p(4)}, ${p(5)}, 'completed', ${p(6)}, ${p(7)}, ${p(8)}, now() from lease
             on conflict (task_id, seq) do update
               set kind = excluded.kind, name = excluded.name, status = 'completed', result = excluded.result,
                   effect_key = excluded.effect_key, attempt = excluded.attempt, completed_at = excluded.completed_at
             returning seq
           )`;
}

export function journalStepValues(
  worker: string,
  taskId: string,
  attempt: number,
  step: JournaledStep,
): unknown[] {
  return [
    taskId,
    worker,
    step.seq,
    step.kind,
    step.name,
    JSON.stringify(step.result),
    step.effectKey,
    attempt,
  ];
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
    text: `with ${journalStepCtes(0)} select seq from journaled`,
    values: journalStepValues(worker, taskId, attempt, step),
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
