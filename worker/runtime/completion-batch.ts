// Group commit of successes: the attempts of one worker that finish while a completion
// statement is in flight go together in the next one — every task finished under our lease,
// each with its task.succeeded entry on the head its attempt knows. Nothing waits on a timer: a
// lone completion is sent at once, and a batch forms only from what arrives meanwhile. A batch
// a head refuses (somebody else appended to one of its streams) goes again one by one.
import type pg from "pg";
import { CommitInDoubtError } from "../../db/retry";
import type { JsonValue } from "../../lib/domain/json";
import {
  appendOnKnownHead,
  appendOnKnownHeads,
  type HeadRef,
} from "../../lib/server/ledger/append-known-head";
import type { NewLedgerEntry } from "../../lib/server/ledger/append-ledger";
import { completeTaskStatement } from "./task-sql";

export type Completion = {
  taskId: string;
  result: JsonValue;
  head: HeadRef;
  entry: NewLedgerEntry;
};

/** Resolves true when the task is recorded succeeded, false when our lease was gone. */
export type Complete = (c: Completion) => Promise<boolean>;

const MAX_BATCH = 200;

type Pending = Completion & { resolve: (done: boolean) => void; reject: (err: unknown) => void };

export function completionBatcher(pool: pg.Pool, worker: string): Complete {
  let queue: Pending[] = [];
  let flushing = false;

  const one = async (c: Completion) => {
    const { row } = await appendOnKnownHead<{ done: number }>(
      pool,
      c.head,
      [c.entry],
      completeTaskStatement(worker, c.taskId, c.result),
    );
    return row.done === 1;
  };

  const settle = async (p: Pending) => {
    try {
      p.resolve(await one(p));
    } catch (err) {
      p.reject(err);
    }
  };

  const send = async (batch: Pending[]) => {
    if (batch.length === 1) return settle(batch[0] as Pending);
    try {
      const { row } = await appendOnKnownHeads<{ done: string[] }>(
        pool,
        batch.map((p) => ({ ref: p.head, entries: [p.entry] })),
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
          values: [batch.map((p) => p.taskId), batch.map((p) => JSON.stringify(p.result)), worker],
          select: "array(select id::text from done) as done",
        },
      );
      const done = new Set(row.done);
      for (const p of batch) p.resolve(done.has(p.taskId.toLowerCase()));
    } catch (err) {
      // In doubt: each attempt reads back what committed before it tries again.
      if (err instanceof CommitInDoubtError) {
        for (const p of batch) p.reject(err);
        return;
      }
      // A moved head, or anything one item could cause: the items alone, each with its own
      // answer (and the single path's retries on a moved head).
      await Promise.all(batch.map(settle));
    }
  };

  const flush = async () => {
    flushing = true;
    try {
      while (queue.length > 0) {
        const batch = queue.slice(0, MAX_BATCH);
        queue = queue.slice(batch.length);
        await send(batch);
      }
    } finally {
      flushing = false;
    }
  };

  return (c) =>
    new Promise<boolean>((resolve, reject) => {
      queue.push({ ...c, resolve, reject });
      if (!flushing) void flush();
    });
}
