// Writes the scale data set: tasks, effects, steps and hash-chained ledger streams, a batch of
// tasks per statement (INSERT … SELECT FROM unnest of column arrays), two batches in flight so
// Node builds the next while PostgreSQL writes the last, into tables without their indexes and
// keys (bulk-schema.ts drops them first and re-creates and validates them after). Hashes are computed in Node with the
// same entryHash the ledger uses, so `agent-ledger verify` passes on what is loaded.
import type pg from "pg";
import { GENESIS_HASH } from "../../lib/domain/hash";
import {
  dropBulkSchema,
  readBulkSchema,
  restoreBulkSchema,
  restoreStatements,
} from "./bulk-schema";
import { canonical, fastEntryHash } from "./canonical";
import { BIG_TASK_ENTRIES, startOf, type TaskBundle, taskBundle } from "./shape";

export type LoadOptions = {
  entries: number;
  tasks: number;
  /** Tasks per INSERT batch. */
  batch?: number;
  now?: Date;
  /** Phases and the statements that re-create the indexes and keys (see bulk-schema.ts). */
  log?: (line: string) => void;
  onProgress?: (done: { tasks: number; entries: number }) => void;
};

export type LoadReport = {
  tasks: number;
  entries: number;
  effects: number;
  steps: number;
  seconds: number;
};

const json = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v));

async function insertBatch(client: pg.PoolClient, bundles: readonly TaskBundle[]): Promise<void> {
  const t = bundles.map((b) => b.task);
  await client.query(
    `insert into tasks (id, agent, input, status, dead_reason, attempts, last_error, result, lease_owner,
                        lease_expires_at, created_by, created_at, updated_at, status_changed_at, run_at)
     select id, agent, input, status, dead_reason, attempts, last_error, result, lease_owner,
            lease_expires_at, created_by, created_at, status_changed_at, status_changed_at, created_at
     from unnest($1::uuid[], $2::text[], $3::jsonb[], $4::text[], $5::text[], $6::int[], $7::jsonb[],
                 $8::jsonb[], $9::text[], $10::timestamptz[], $11::text[], $12::timestamptz[], $13::timestamptz[])
       as s(id, agent, input, status, dead_reason, attempts, last_error, result, lease_owner,
            lease_expires_at, created_by, created_at, status_changed_at)`,
    [
      t.map((x) => x.id),
      t.map((x) => x.agent),
      t.map((x) => json(x.input)),
      t.map((x) => x.status),
      t.map((x) => x.deadReason),
      t.map((x) => x.attempts),
      t.map((x) => json(x.lastError)),
      t.map((x) => json(x.result)),
      t.map((x) => x.leaseOwner),
      t.map((x) => x.leaseExpiresAt),
      t.map((x) => x.createdBy),
      t.map((x) => x.createdAt),
      t.map((x) => x.statusChangedAt),
    ],
  );
  const f = bundles.flatMap((b) => b.effects);
  if (f.length > 0) {
    await client.query(
      `insert into effects (key, task_id, step_seq, tool, intent, args, fingerprint, status, result, error,
                            attempts, created_at, updated_at, completed_at)
       select key, task_id, step_seq, tool, intent, args, fingerprint, status, result, error, attempts,
              created_at, coalesce(completed_at, created_at), completed_at
       from unnest($1::text[], $2::uuid[], $3::int[], $4::text[], $5::jsonb[], $6::jsonb[], $7::text[],
                   $8::text[], $9::jsonb[], $10::jsonb[], $11::int[], $12::timestamptz[], $13::timestamptz[])
         as s(key, task_id, step_seq, tool, intent, args, fingerprint, status, result, error, attempts,
              created_at, completed_at)`,
      [
        f.map((x) => x.key),
        f.map((x) => x.taskId),
        f.map((x) => x.stepSeq),
        f.map((x) => x.tool),
        f.map((x) => json(x.intent)),
        f.map((x) => json(x.args)),
        f.map((x) => x.fingerprint),
        f.map((x) => x.status),
        f.map((x) => json(x.result)),
        f.map((x) => json(x.error)),
        f.map((x) => x.attempts),
        f.map((x) => x.createdAt),
        f.map((x) => x.completedAt),
      ],
    );
  }
  const s = bundles.flatMap((b) => b.steps);
  if (s.length > 0) {
    await client.query(
      `insert into steps (task_id, seq, kind, name, status, result, effect_key, attempt, started_at, completed_at)
       select task_id, seq, kind, name, 'completed', result, effect_key, attempt, started_at, completed_at
       from unnest($1::uuid[], $2::int[], $3::text[], $4::text[], $5::jsonb[], $6::text[], $7::int[],
                   $8::timestamptz[], $9::timestamptz[])
         as s(task_id, seq, kind, name, result, effect_key, attempt, started_at, completed_at)`,
      [
        s.map((x) => x.taskId),
        s.map((x) => x.seq),
        s.map((x) => x.kind),
        s.map((x) => x.name),
        s.map((x) => json(x.result)),
        s.map((x) => x.effectKey),
        s.map((x) => x.attempt),
        s.map((x) => x.startedAt),
        s.map((x) => x.completedAt),
      ],
    );
  }
  const e = bundles.flatMap((b) => b.entries);
  await insertEntries(client, e, bundles);
}

async function insertEntries(
  client: pg.PoolClient,
  e: readonly TaskBundle["entries"][number][],
  bundles: readonly Pick<TaskBundle, "entries">[],
): Promise<void> {
  const heads = bundles.flatMap((b) => {
    const first = b.entries[0];
    const last = b.entries.at(-1);
    return first && last ? [{ ...last, createdAt: first.at }] : [];
  });
  // Heads first: entries reference their stream.
  await client.query(
    `insert into ledger_streams (stream, head_seq, head_hash, created_at, updated_at)
     select stream, seq, hash, created_at, at
     from unnest($1::text[], $2::bigint[], $3::text[], $4::timestamptz[], $5::timestamptz[])
       as s(stream, seq, hash, created_at, at)`,
    [
      heads.map((h) => h.stream),
      heads.map((h) => h.seq),
      heads.map((h) => h.hash),
      heads.map((h) => h.createdAt),
      heads.map((h) => h.at),
    ],
  );
  // Big streams go in slices, so no one statement carries megabytes of parameters.
  const SLICE = 20_000;
  for (let from = 0; from < e.length; from += SLICE) {
    const part = e.slice(from, from + SLICE);
    await client.query(
      `insert into ledger_entries (stream, seq, at, kind, actor, task_id, key, data, prev_hash, hash)
       select * from unnest($1::text[], $2::bigint[], $3::timestamptz[], $4::text[], $5::text[],
                            $6::uuid[], $7::text[], $8::jsonb[], $9::text[], $10::text[])`,
      [
        part.map((x) => x.stream),
        part.map((x) => x.seq),
        part.map((x) => x.at),
        part.map((x) => x.kind),
        part.map((x) => x.actor),
        part.map((x) => x.taskId),
        part.map((x) => x.key),
        part.map((x) => x.dataText),
        part.map((x) => x.prevHash),
        part.map((x) => x.hash),
      ],
    );
  }
}

/** Policy and user changes on the system stream, one per ~10k task entries. */
function systemStream(count: number, nowMs: number): Pick<TaskBundle, "entries"> {
  const entries: TaskBundle["entries"] = [];
  let prev = GENESIS_HASH;
  for (let n = 0; n < count; n++) {
    const e = {
      stream: "system",
      seq: n + 1,
      at: new Date(nowMs - (count - n) * 3_600_000).toISOString(),
      kind: "policy.changed",
      actor: "user:admin@example.com",
      taskId: null,
      key: null,
      data: {
        agent: n % 2 === 0 ? "refund" : "invoice-reminder",
        before: { maxAttempts: 5 + (n % 3) },
        after: { maxAttempts: 5 + ((n + 1) % 3) },
      },
    };
    const dataText = canonical(e.data);
    const hash = fastEntryHash(prev, e, dataText);
    entries.push({ ...e, dataText, prevHash: prev, hash });
    prev = hash;
  }
  return { entries };
}

/**
 * Loads `tasks` tasks and about `entries` entries into an empty, migrated database. Task 0 is
 * the long one (BIG_TASK_ENTRIES entries, when the load is large enough to hold it); the
 * others share the rest, the shortfall of short tasks carried into retries of later ones.
 */
export async function loadScale(pool: pg.Pool, opts: LoadOptions): Promise<LoadReport> {
  const started = performance.now();
  const nowMs = (opts.now ?? new Date()).getTime();
  const batch = opts.batch ?? 2000;
  const bigEntries = opts.entries >= BIG_TASK_ENTRIES * 10 ? BIG_TASK_ENTRIES : 0;
  const perTask = (opts.entries - bigEntries) / Math.max(1, opts.tasks - (bigEntries ? 1 : 0));
  let written = 0;
  let effects = 0;
  let steps = 0;
  let planned = bigEntries;
  let next = 0;

  const build = (): TaskBundle[] => {
    const bundles: TaskBundle[] = [];
    for (; next < opts.tasks && bundles.length < batch; next++) {
      const i = next;
      const budget = i === 0 && bigEntries ? bigEntries : Math.round(planned + perTask) - written;
      if (!(i === 0 && bigEntries)) planned += perTask;
      const b = taskBundle(i, budget, startOf(i, opts.tasks, nowMs));
      written += b.entries.length;
      effects += b.effects.length;
      steps += b.steps.length;
      bundles.push(b);
    }
    return bundles;
  };

  const write = async (bundles: TaskBundle[]) => {
    const client = await pool.connect();
    try {
      // A throwaway data set: losing the last commits in a crash costs nothing.
      await client.query("set synchronous_commit = off");
      await client.query("begin");
      await insertBatch(client, bundles);
      await client.query("commit");
    } catch (err) {
      await client.query("rollback").catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  };

  const log = opts.log ?? (() => undefined);
  const schema = await (async () => {
    const client = await pool.connect();
    try {
      const found = await readBulkSchema(client);
      // Printed first, so a load killed halfway leaves the way back in its log.
      const back = restoreStatements(found);
      log(
        `dropping ${found.keys.length} keys, ${found.indexes.length} indexes and ${found.foreignKeys.length} foreign keys until the load is in; they come back as:\n${[...back.keys, ...back.indexes, ...back.foreignKeys].map((q) => `  ${q};`).join("\n")}`,
      );
      await dropBulkSchema(client, found);
      return found;
    } finally {
      client.release();
    }
  })();

  const system = await (async () => {
    const inFlight = new Set<Promise<void>>();
    let done = 0;
    while (next < opts.tasks) {
      const bundles = build();
      const p: Promise<void> = write(bundles).then(() => {
        inFlight.delete(p);
        done += bundles.length;
        opts.onProgress?.({ tasks: done, entries: written });
      });
      inFlight.add(p);
      if (inFlight.size >= 2) await Promise.race(inFlight);
    }
    await Promise.all(inFlight);
    const system = systemStream(Math.max(1, Math.floor(written / 10_000)), nowMs);
    const client = await pool.connect();
    try {
      await client.query("set synchronous_commit = off");
      await insertEntries(client, system.entries, [system]);
    } finally {
      client.release();
    }
    return system;
  })().catch(async (err) => {
    // Put the schema back even so: the batches that committed are whole tasks and streams.
    await restoreBulkSchema(pool, schema, { log }).catch((e) =>
      log(`re-creating the indexes failed too: ${(e as Error).message}`),
    );
    throw err;
  });
  const rowsIn = performance.now();
  log(`rows in after ${((rowsIn - started) / 1000).toFixed(1)} s; re-creating indexes and keys`);
  await restoreBulkSchema(pool, schema, { log, maintenanceWorkMem: "1GB" });
  log(`indexes and keys back in ${((performance.now() - rowsIn) / 1000).toFixed(1)} s`);
  written += system.entries.length;
  // Hint bits and the visibility map set, as autovacuum leaves a live database: the first
  // measure should not pay for the load's cleanup.
  const analyzing = performance.now();
  await pool.query("vacuum analyze");
  log(`vacuum analyze in ${((performance.now() - analyzing) / 1000).toFixed(1)} s`);
  return {
    tasks: opts.tasks,
    entries: written,
    effects,
    steps,
    seconds: (performance.now() - started) / 1000,
  };
}
