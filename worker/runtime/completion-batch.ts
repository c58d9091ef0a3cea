// Group commit of successes (group-commit.ts): the attempts of one worker that finish together
// share one statement — every task finished under our lease, each with its task.succeeded entry
// on the head its attempt knows. A batch a head refuses (somebody else appended to one of its
// streams) goes again one by one.
//
// A success carries the result of the attempt's last effect when that result was not recorded
// yet (effect-result.ts defers it to the task's next statement): the effect's result, its journaled
// step and effect.succeeded then commit with the task's end, all under our lease or none of it.
// Without the lease nothing is written here, and the result is recorded on its own (it is a
// fact whoever holds the task now) before the attempt is answered "lost".
import type pg from "pg";
import { retryOnConnectionError } from "../../db/retry";
import type { JsonValue } from "../../lib/domain/json";
import { groupCommit } from "../../lib/server/group-commit";
import {
  appendOnKnownHead,
  appendOnKnownHeads,
  type HeadRef,
} from "../../lib/server/ledger/append-known-head";
import type { NewLedgerEntry } from "../../lib/server/ledger/append-ledger";
import { type EffectBatchers, type EffectResult, recordToolStepsCtes } from "./effect-batch";
import { leasedTo } from "./task-sql";

export type Completion = {
  taskId: string;
  result: JsonValue;
  head: HeadRef;
  /** task.succeeded */
  entry: NewLedgerEntry;
  /** The attempt's last effect result, not yet recorded: it goes with the success. */
  record?: EffectResult;
};

/** Resolves true when the task is recorded succeeded, false when our lease was gone. */
export type Complete = (c: Completion) => Promise<boolean>;

/**
 * The tasks in `input` finished under our lease ($8), with their unrecorded effect results
 * (key null when there is none). One text for the lone and the batched form.
 */
const COMPLETE_CTES = `input as (
    select * from unnest($1::uuid[], $2::jsonb[], $3::text[], $4::jsonb[], $5::int[], $6::text[], $7::int[])
      as i(id, result, effect_key, effect_result, step_seq, tool, attempt)
  ), done as (
    update tasks t set status = 'succeeded', result = i.result, lease_owner = null,
      lease_expires_at = null, version = t.version + 1, updated_at = now(),
      status_changed_at = now()
    from input i
    where t.id = i.id and ${leasedTo("$8", "t")}
    returning t.id
  ), ${recordToolStepsCtes(
    "(select effect_key as key, effect_result as result, id as task_id, step_seq as seq, tool as name, attempt from input where effect_key is not null and id in (select id from done)) d",
    "done",
  )}`;

function completeValues(batch: readonly Completion[], worker: string): unknown[] {
  return [
    batch.map((c) => c.taskId),
    batch.map((c) => JSON.stringify(c.result)),
    batch.map((c) => c.record?.key ?? null),
    batch.map((c) => (c.record ? JSON.stringify(c.record.result) : null)),
    batch.map((c) => c.record?.stepSeq ?? null),
    batch.map((c) => c.record?.tool ?? null),
    batch.map((c) => c.record?.attempt ?? null),
    worker,
  ];
}

/** effect.succeeded (when a result rides along), then task.succeeded. */
const entriesOf = (c: Completion): NewLedgerEntry[] =>
  c.record ? [c.record.entry, c.entry] : [c.entry];

export function completionBatcher(
  pool: pg.Pool,
  worker: string,
  effects: EffectBatchers,
): Complete {
  const commit = groupCommit<Completion, boolean>({
    one: async (c) => {
      const { row } = await appendOnKnownHead<{ done: number }>(pool, c.head, entriesOf(c), {
        name: "runtime_complete_task",
        ctes: COMPLETE_CTES,
        values: completeValues([c], worker),
        when: "exists (select 1 from done)",
        select: "(select count(*) from done)::int as done",
      });
      return row.done === 1;
    },
    many: async (batch) => {
      const { row } = await appendOnKnownHeads<{ done: string[] }>(
        pool,
        batch.map((c) => ({ ref: c.head, entries: entriesOf(c) })),
        {
          name: "runtime_complete_tasks",
          ctes: `${COMPLETE_CTES}, acted as (select 'task:' || id::text as stream from done)`,
          values: completeValues(batch, worker),
          select: "array(select id::text from done) as done",
        },
      );
      const done = new Set(row.done);
      return batch.map((c) => done.has(c.taskId.toLowerCase()));
    },
  });
  return async (c) => {
    const done = await commit(c);
    // Not ours any more: the effect's result is still recorded, on its own.
    const record = c.record;
    if (!done && record) {
      await retryOnConnectionError(({ inDoubt }) => effects.record({ ...record, inDoubt }));
    }
    return done;
  };
}
