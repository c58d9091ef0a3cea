// Writes the scale data set: tasks, effects, steps and hash-chained ledger streams, a batch of
// tasks per COPY per table (copy-in.ts), two batches in flight so
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
import { copyRows } from "./copy-in";
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

/**
 * Row triggers off while the rows go in, their work done by the loader instead: the spend
 * counters recounted once after the load (spend_recount) rather than a call per task that spent
 * something, a dead task's dead_tool written with it (deadTool) rather than looked up.
 */
const DEFERRED_TRIGGERS = {
  tasks: ["task_spend_insert", "tasks_keep_dead_tool", "tasks_keep_dead_tool_updated"],
  steps: ["steps_refresh_dead_tool"],
} as const;

async function enableDeferredTriggers(pool: pg.Pool): Promise<void> {
  for (const [table, names] of Object.entries(DEFERRED_TRIGGERS)) {
    await pool.query(`alter table ${table} enable trigger ${names.join(", enable trigger ")}`);
  }
}

const json = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v));

/**
 * What the tasks_keep_dead_tool trigger (migration 0027) would set: a dead task's last tool step.
 * The loader writes it with the task and keeps that trigger off: the trigger looks the steps up by
 * task while their index is dropped, a whole-table scan per dead task (a 10M load never ended).
 */
function deadTool(status: string, steps: TaskBundle["steps"]): string | null {
  if (status !== "dead") return null;
  const tools = steps.filter((x) => x.kind === "tool").sort((a, b) => a.seq - b.seq);
  return tools.at(-1)?.name ?? null;
}

async function insertBatch(client: pg.PoolClient, bundles: readonly TaskBundle[]): Promise<void> {
  await copyRows(
    client,
    "tasks",
    [
      "id",
      "agent",
      "input",
      "status",
      "dead_reason",
      "attempts",
      "last_error",
      "result",
      "lease_owner",
      "lease_expires_at",
      "created_by",
      "created_at",
      "updated_at",
      "status_changed_at",
      "run_at",
      "cost",
      "dead_tool",
    ],
    bundles.map(({ task: x, steps }) => [
      x.id,
      x.agent,
      json(x.input),
      x.status,
      x.deadReason,
      x.attempts,
      json(x.lastError),
      json(x.result),
      x.leaseOwner,
      x.leaseExpiresAt,
      x.createdBy,
      x.createdAt,
      x.statusChangedAt,
      x.statusChangedAt,
      x.createdAt,
      x.cost,
      deadTool(x.status, steps),
    ]),
  );
  await copyRows(
    client,
    "effects",
    [
      "key",
      "task_id",
      "step_seq",
      "tool",
      "intent",
      "args",
      "fingerprint",
      "status",
      "result",
      "error",
      "attempts",
      "created_at",
      "updated_at",
      "completed_at",
    ],
    bundles.flatMap((b) =>
      b.effects.map((x) => [
        x.key,
        x.taskId,
        x.stepSeq,
        x.tool,
        json(x.intent),
        json(x.args),
        x.fingerprint,
        x.status,
        json(x.result),
        json(x.error),
        x.attempts,
        x.createdAt,
        x.completedAt ?? x.createdAt,
        x.completedAt,
      ]),
    ),
  );
  await copyRows(
    client,
    "steps",
    [
      "task_id",
      "seq",
      "kind",
      "name",
      "status",
      "result",
      "effect_key",
      "attempt",
      "started_at",
      "completed_at",
    ],
    bundles.flatMap((b) =>
      b.steps.map((x) => [
        x.taskId,
        x.seq,
        x.kind,
        x.name,
        x.completedAt === null ? "started" : "completed",
        json(x.result),
        x.effectKey,
        x.attempt,
        x.startedAt,
        x.completedAt,
      ]),
    ),
  );
  await insertEntries(client, bundles);
}

/**
 * The partition month ledger_streams.month gives a stream opened at `createdAt` (an ISO time in
 * UTC), as migration 0055 spells it: the month for a task's stream, 1970-01-01 for any other.
 */
export function streamMonth(stream: string, createdAt: string): string {
  return stream.startsWith("task:") ? `${createdAt.slice(0, 7)}-01` : "1970-01-01";
}

/** Streams at their last entry, then the entries, by COPY (the checkpoint bench loads its streams so too). */
export async function insertEntries(
  client: pg.PoolClient,
  bundles: readonly Pick<TaskBundle, "entries">[],
): Promise<void> {
  const heads = bundles.flatMap((b) => {
    const first = b.entries[0];
    const last = b.entries.at(-1);
    return first && last ? [[last.stream, last.seq, last.hash, first.at, last.at]] : [];
  });
  // Heads first: entries reference their stream (checked when the foreign key comes back).
  await copyRows(
    client,
    "ledger_streams",
    ["stream", "head_seq", "head_hash", "created_at", "updated_at"],
    heads,
  );
  await copyRows(
    client,
    "ledger_entries",
    ["stream", "seq", "at", "kind", "actor", "task_id", "key", "data", "hash", "month"],
    bundles.flatMap((b) => {
      const first = b.entries[0];
      const month = first ? streamMonth(first.stream, first.at) : "";
      return b.entries.map((x) => [
        x.stream,
        x.seq,
        x.at,
        x.kind,
        x.actor,
        x.taskId,
        x.key,
        x.dataText,
        x.hash,
        month,
      ]);
    }),
  );
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
    entries.push({ ...e, dataText, hash });
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
      // The months the tasks are spread over, and two ahead as the worker keeps them, before
      // the schema is read: the new partitions' indexes then go and come back with the rest.
      await client.query("select ledger_ensure_partitions($1::date, $2::date)", [
        new Date(nowMs + 62 * 86_400_000).toISOString().slice(0, 10),
        new Date(startOf(0, opts.tasks, nowMs)).toISOString().slice(0, 10),
      ]);
      const found = await readBulkSchema(client);
      // Printed first, so a load killed halfway leaves the way back in its log.
      const back = restoreStatements(found);
      log(
        `dropping ${found.keys.length} keys, ${found.indexes.length} indexes and ${found.foreignKeys.length} foreign keys until the load is in; they come back as:\n${[...back.keys, ...back.indexes, ...back.foreignKeys].map((q) => `  ${q};`).join("\n")}`,
      );
      await dropBulkSchema(client, found);
      // Row triggers whose work the loader does itself (see DEFERRED_TRIGGERS).
      await client.query(
        `alter table tasks disable trigger ${DEFERRED_TRIGGERS.tasks.join(", disable trigger ")}`,
      );
      await client.query(
        `alter table steps disable trigger ${DEFERRED_TRIGGERS.steps.join(", disable trigger ")}`,
      );
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
      await insertEntries(client, [system]);
    } finally {
      client.release();
    }
    return system;
  })().catch(async (err) => {
    // Put the schema back even so: the batches that committed are whole tasks and streams.
    await restoreBulkSchema(pool, schema, { log }).catch((e) =>
      log(`re-creating the indexes failed too: ${(e as Error).message}`),
    );
    await enableDeferredTriggers(pool).catch(() => undefined);
    throw err;
  });
  const rowsIn = performance.now();
  log(`rows in after ${((rowsIn - started) / 1000).toFixed(1)} s; re-creating indexes and keys`);
  await restoreBulkSchema(pool, schema, { log, maintenanceWorkMem: "1GB" });
  log(`indexes and keys back in ${((performance.now() - rowsIn) / 1000).toFixed(1)} s`);
  written += system.entries.length;
  const counting = performance.now();
  await enableDeferredTriggers(pool);
  await pool.query("select spend_recount()");
  log(`spend counters recounted in ${((performance.now() - counting) / 1000).toFixed(1)} s`);
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
