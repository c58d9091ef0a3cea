// Group commit of successes (group-commit.ts): the attempts of one worker that finish together
// share one statement — every task finished under our lease, each with its task.succeeded entry
// on the head its attempt knows. A batch a head refuses (somebody else appended to one of its
// streams) goes again one by one.
import type pg from "pg";
import type { JsonValue } from "../../lib/domain/json";
import {
  appendOnKnownHead,
  appendOnKnownHeads,
  type HeadRef,
} from "../../lib/server/ledger/append-known-head";
import type { NewLedgerEntry } from "../../lib/server/ledger/append-ledger";
import { groupCommit } from "./group-commit";
import { completeTaskStatement } from "./task-sql";

export type Completion = {
  taskId: string;
  result: JsonValue;
  head: HeadRef;
  entry: NewLedgerEntry;
};

/** Resolves true when the task is recorded succeeded, false when our lease was gone. */
export type Complete = (c: Completion) => Promise<boolean>;

export function completionBatcher(pool: pg.Pool, worker: string): Complete {
  return groupCommit<Completion, boolean>({
    one: async (c) => {
      const { row } = await appendOnKnownHead<{ done: number }>(
        pool,
        c.head,
        [c.entry],
        completeTaskStatement(worker, c.taskId, c.result),
      );
      return row.done === 1;
    },
    many: async (batch) => {
      const { row } = await appendOnKnownHeads<{ done: string[] }>(
        pool,
        batch.map((c) => ({ ref: c.head, entries: [c.entry] })),
        {
          name: "runtime_complete_tasks",
          ctes: `input as (
                   select * from unnest($1::uuid[], $2::jsonb[]) as i(id, result)
                 ), done as (
                   update tasks t set status = 'succeeded', result = i.result, lease_owner = null,
                     lease_expires_at = null, version = t.version + 1, updated_at = now(),
                     status_changed_at = now()
                   from input i
                   where t.id = i.id and t.lease_owner = $3 and t.status = 'running'
                   returning t.id
                 ), acted as (
                   select 'task:' || id::text as stream from done
                 )`,
          values: [batch.map((c) => c.taskId), batch.map((c) => JSON.stringify(c.result)), worker],
          select: "array(select id::text from done) as done",
        },
      );
      const done = new Set(row.done);
      return batch.map((c) => done.has(c.taskId.toLowerCase()));
    },
  });
}
