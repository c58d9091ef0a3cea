// Group commit (group-commit.ts) of the two commits every effect needs: the key's claim, before
// acting, and the result with effect.succeeded (carrying the claim, lib/domain/effect-start.ts)
// and the journaled step, after. The attempts of one worker that reach the same commit together
// share one statement; every claim and every result is still durable before its caller goes on.
import type pg from "pg";
import type { SqlClient } from "../../db/client";
import type { JsonValue } from "../../lib/domain/json";
import { type GroupCommit, groupCommit } from "../../lib/server/group-commit";
import {
  appendOnKnownHead,
  appendOnKnownHeads,
  type HeadRef,
} from "../../lib/server/ledger/append-known-head";
import type { NewLedgerEntry } from "../../lib/server/ledger/append-ledger";
import { journalStepsCte, leaseCte } from "./journal";

export type EffectClaim = {
  key: string;
  taskId: string;
  stepSeq: number;
  tool: string;
  intent: JsonValue;
  /** Redacted, as stored and hashed. */
  args: JsonValue;
  fingerprint: string;
  leaseMs: number;
};
/**
 * `leased` false: the task's lease is gone. `inserted` false: the key was claimed before. `at`:
 * the claim's time, which the entry ending the claim carries (no entry is written with it).
 */
export type ClaimAnswer = { leased: boolean; inserted: boolean; at: Date };

export type EffectResult = {
  key: string;
  taskId: string;
  stepSeq: number;
  tool: string;
  attempt: number;
  result: JsonValue;
  /** After a lost COMMIT answer the entry goes only with the result's own update. */
  inDoubt: boolean;
  head: HeadRef;
  /** effect.succeeded */
  entry: NewLedgerEntry;
};

/**
 * The effect claim, the one text for one claim and for a batch: each key inserted as `started`
 * under our lease on the effect, if its task is still leased to us ($9) and nobody claimed the
 * key before. `lease(id)` holds the tasks still ours, `ins(key, task_id)` the keys claimed now.
 */
const CLAIM_EFFECTS_CTES = `input as (
    select * from unnest($1::text[], $2::uuid[], $3::int[], $4::text[], $5::jsonb[], $6::jsonb[], $7::text[], $8::bigint[])
      as i(key, task_id, step_seq, tool, intent, args, fingerprint, lease_ms)
  ), ${leaseCte("select task_id from input", "$9")}, ins as (
    insert into effects (key, task_id, step_seq, tool, intent, args, fingerprint, status, lease_owner, lease_expires_at)
    select i.key, i.task_id, i.step_seq, i.tool, i.intent, i.args, i.fingerprint, 'started', $9,
           now() + i.lease_ms * interval '1 millisecond'
    from input i where i.task_id in (select id from lease)
    on conflict (key) do nothing
    returning key, task_id
  )`;
/** For one claim: whether its task is still ours, whether the key was claimed now, and when. */
const CLAIM_EFFECT_SELECT =
  "(select count(*) from lease)::int as leased, (select count(*) from ins)::int as inserted, now() as at";

/**
 * One claim, in the caller's transaction or on its own (`db` a client or the pool): the same
 * statement the batch sends for one.
 */
export async function claimEffect(
  db: SqlClient,
  c: EffectClaim,
  worker: string,
): Promise<ClaimAnswer> {
  const { rows } = await db.query<{ leased: number; inserted: number; at: Date }>({
    name: "runtime_claim_effect",
    text: `with ${CLAIM_EFFECTS_CTES} select ${CLAIM_EFFECT_SELECT}`,
    values: claimValues([c], worker),
  });
  const row = rows[0];
  return {
    leased: (row?.leased ?? 0) > 0,
    inserted: (row?.inserted ?? 0) > 0,
    at: row?.at ?? new Date(),
  };
}

function claimValues(batch: readonly EffectClaim[], worker: string): unknown[] {
  return [
    batch.map((c) => c.key),
    batch.map((c) => c.taskId),
    batch.map((c) => c.stepSeq),
    batch.map((c) => c.tool),
    batch.map((c) => JSON.stringify(c.intent)),
    batch.map((c) => JSON.stringify(c.args)),
    batch.map((c) => c.fingerprint),
    batch.map((c) => c.leaseMs),
    worker,
  ];
}

/**
 * An effect's result and its tool step, the one text for every path that records one:
 * - `recorded(key, journal_attempt)` marks the effects of `rows` (a relation with key, result,
 *   task_id, seq, name, attempt) succeeded with their results, unless one already is. The result
 *   is a fact whoever holds the task now, so no lease guards it. Where the task is in
 *   `guard(id)` (still ours) and the effect was claimed at this step, the same update makes it
 *   the attempt's journaled tool step (`journal_attempt`, read through `journal_steps`): no row
 *   of `steps` repeats it (migration 0067).
 * - `in_effects(key)`: those, and the effects an earlier try of this statement already made the
 *   step (its COMMIT answer was lost).
 * - `journaled`: a row of `steps` for the others under the guard (an effect recorded before, by
 *   an earlier attempt or at another step).
 * - `journal(task_id, seq)`: every step journaled under the guard, either way.
 */
export function recordToolStepsCtes(rows: string, guard: string): string {
  const underGuard = `r.task_id in (select id from ${guard})`;
  return `tool_steps as (
    select key, result, task_id, seq, name, attempt from ${rows}
  ), recorded as (
    update effects e set status = 'succeeded', result = r.result, error = null, lease_owner = null,
      lease_expires_at = null, completed_at = now(), updated_at = now(),
      journal_attempt = case when ${underGuard} and e.step_seq = r.seq then r.attempt end
    from tool_steps r
    where e.key = r.key and e.status <> 'succeeded'
    returning e.key, e.journal_attempt
  ), in_effects as (
    select key from recorded where journal_attempt is not null
    union all
    select r.key from tool_steps r join effects e on e.key = r.key
    where ${underGuard} and e.step_seq = r.seq and e.journal_attempt = r.attempt
  ), ${journalStepsCte(
    `(select r.task_id, r.seq, 'tool' as kind, r.name, r.result, r.key as effect_key, r.attempt
      from tool_steps r where r.key not in (select key from in_effects))`,
    guard,
  )}, journal as (
    select task_id, seq from journaled
    union select r.task_id, r.seq from tool_steps r where r.key in (select key from in_effects)
  )`;
}

/**
 * Results with their tool steps journaled under our lease ($8), one text for one and many:
 * `lease`, then recordToolStepsCtes's.
 */
const RECORD_EFFECTS_CTES = `input as (
    select * from unnest($1::text[], $2::jsonb[], $3::uuid[], $4::int[], $5::text[], $6::int[], $7::boolean[])
      as i(key, result, task_id, seq, name, attempt, in_doubt)
  ), ${leaseCte("select task_id from input", "$8")}, ${recordToolStepsCtes("input", "lease")}`;

function recordValues(batch: readonly EffectResult[], worker: string): unknown[] {
  return [
    batch.map((r) => r.key),
    batch.map((r) => JSON.stringify(r.result)),
    batch.map((r) => r.taskId),
    batch.map((r) => r.stepSeq),
    batch.map((r) => r.tool),
    batch.map((r) => r.attempt),
    batch.map((r) => r.inDoubt),
    worker,
  ];
}

/**
 * Whose effect.succeeded is written: a result recorded now, or one whose write was not in
 * doubt (after a lost COMMIT answer the entry goes only with the result's own update).
 */
const RECORD_ACTED = `select 'task:' || i.task_id::text as stream from input i
                   where not i.in_doubt or i.key in (select key from recorded)`;

export type EffectBatchers = {
  claim: GroupCommit<EffectClaim, ClaimAnswer>;
  /** Resolves true while the task is still ours (the step was journaled). */
  record: GroupCommit<EffectResult, boolean>;
};

export function effectBatchers(pool: pg.Pool, worker: string): EffectBatchers {
  // A claim writes no entry and moves no head: one plain statement, alone or for a batch.
  const claim = groupCommit<EffectClaim, ClaimAnswer>({
    one: (c) => claimEffect(pool, c, worker),
    many: async (batch) => {
      const { rows } = await pool.query<{ leased: string[]; inserted: string[]; at: Date }>({
        name: "runtime_claim_effects",
        text: `with ${CLAIM_EFFECTS_CTES}
               select array(select id::text from lease) as leased, array(select key from ins) as inserted, now() as at`,
        values: claimValues(batch, worker),
      });
      const row = rows[0];
      const leased = new Set(row?.leased ?? []);
      const inserted = new Set(row?.inserted ?? []);
      const at = row?.at ?? new Date();
      return batch.map((c) => ({
        leased: leased.has(c.taskId.toLowerCase()),
        inserted: inserted.has(c.key),
        at,
      }));
    },
  });

  const record = groupCommit<EffectResult, boolean>({
    one: async (r) => {
      const { row } = await appendOnKnownHead<{ leased: number }>(pool, r.head, [r.entry], {
        name: "runtime_record_effect",
        ctes: RECORD_EFFECTS_CTES,
        values: recordValues([r], worker),
        when: `exists (${RECORD_ACTED})`,
        select: "(select count(*) from journal)::int as leased",
      });
      return row.leased === 1;
    },
    many: async (batch) => {
      const { row } = await appendOnKnownHeads<{ leased: string[] }>(
        pool,
        batch.map((r) => ({ ref: r.head, entries: [r.entry] })),
        {
          name: "runtime_record_effects",
          ctes: `${RECORD_EFFECTS_CTES}, acted as (${RECORD_ACTED})`,
          values: recordValues(batch, worker),
          select: "array(select task_id::text from journal) as leased",
        },
      );
      const leased = new Set(row.leased);
      return batch.map((r) => leased.has(r.taskId.toLowerCase()));
    },
  });

  return { claim, record };
}
