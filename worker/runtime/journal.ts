// The step journal of one task: completed steps are read with the claim (task-sql.ts), and each
// newly completed step is written in one statement that also proves we still hold the lease.
import type { SqlClient } from "../../db/client";
import type { JsonValue } from "../../lib/domain/json";
import type { StepKind } from "../../lib/domain/task-states";
import { leasedTo } from "./task-sql";

export type JournaledStep = {
  seq: number;
  kind: StepKind;
  name: string;
  result: JsonValue;
  effectKey: string | null;
};

/**
 * The step journal's one write: `journaled` upserts the completed steps of `rows` (a relation
 * with task_id, seq, kind, name, result, effect_key, attempt) whose task is in `guard(id)` —
 * the tasks still leased to us (`lease`), or those a completion just finished under our lease.
 * Returns task_id and seq of each step written. Every path that journals a step uses it: alone,
 * with an effect's result (effect-batch.ts) or with the task's success (completion-batch.ts).
 */
export function journalStepsCte(rows: string, guard: string): string {
  return `journaled as (
             insert into steps (task_id, seq, kind, name, status, result, effect_key, attempt, completed_at)
             select r.task_id, r.seq, r.kind, r.name, 'completed', r.result, r.effect_key, r.attempt, now()
             from ${rows} r where r.task_id in (select id from ${guard})
             on conflict (task_id, seq) do update
               set kind = excluded.kind, name = excluded.name, status = 'completed', result = excluded.result,
                   effect_key = excluded.effect_key, attempt = excluded.attempt, completed_at = excluded.completed_at
             returning task_id, seq
           )`;
}

/** `lease(id)`: which of `taskIds` (SQL) are still running under `worker`'s lease, held for share. */
export function leaseCte(taskIds: string, worker: string): string {
  return `lease as (
             select id from tasks where id in (${taskIds}) and ${leasedTo(worker)}
             for share
           )`;
}

/**
 * One step under the lease as two CTEs, `lease` and `journaled` (one row when written), with
 * its 8 values numbered from $`after + 1`: a statement of its own here, or part of one that
 * also appends the step's entry (context.ts).
 */
export function journalStepCtes(after: number): string {
  const p = (i: number) => `$${after + i}`;
  const row = `(select ${p(1)}::uuid as task_id, ${p(3)}::int as seq, ${p(4)}::text as kind,
                       ${p(5)}::text as name, ${p(6)}::jsonb as result, ${p(7)}::text as effect_key,
                       ${p(8)}::int as attempt)`;
  return `${leaseCte(`${p(1)}::uuid`, p(2))}, ${journalStepsCte(row, "lease")}`;
}

/** The 8 values of journalStepCtes, in its order. */
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
    text: `with ${leaseCte("$1::uuid", "$2")} select 1 from lease`,
    values: [taskId, worker],
  });
  return rows.length === 1;
}
