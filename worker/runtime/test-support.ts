// What the runtime's test files share: enqueue (optionally held back), wait for a task to reach a
// state, read its ledger and effects, and run one attempt by hand as a named worker that has no
// heartbeat and no reaper, so a test can stage a second, stale or slow worker precisely.

import type pg from "pg";
import { z } from "zod";
import { withTransaction } from "../../db/client";
import { attemptStartOf } from "../../lib/domain/attempt-start";
import type { CallbackSigning } from "../../lib/domain/callback-token";
import type { JsonValue } from "../../lib/domain/json";
import type { RateLimitSpec } from "../../lib/domain/rate-limit";
import { type Agent, defineAgent, defineTool } from "../../lib/sdk/define";
import type { ModelClient } from "../../lib/sdk/model";
import { insertTask } from "../../lib/server/commands/enqueue-task";
import { claimBatch } from "./claim-batch";
import { completionBatcher } from "./completion-batch";
import { effectBatchers } from "./effect-batch";
import { type AttemptOutcome, runAttempt } from "./run-attempt";

export type TaskRow = {
  status: string;
  dead_reason: string | null;
  attempts: number;
  version: number;
  run_at: Date;
  result: JsonValue | null;
  last_error: { message: string } | null;
};

export type EntryRow = { kind: string; actor: string; key: string | null; data: JsonValue };

export type EffectRow = {
  key: string;
  step_seq: number;
  status: string;
  attempts: number;
  lease_owner: string | null;
  fingerprint: string;
  args: JsonValue;
  result: JsonValue | null;
};

const FINAL = ["succeeded", "dead", "rejected", "cancelled"];

export function runtimeTestKit(pool: pg.Pool) {
  async function enqueue(
    agent: string,
    input: unknown,
    opts: { held?: boolean; policy?: Record<string, unknown> } = {},
  ): Promise<string> {
    // A held task waits an hour, so a test can stage what an earlier attempt left behind.
    const runAt = opts.held ? new Date(Date.now() + 3_600_000) : undefined;
    const { taskId } = await withTransaction(pool, (c) =>
      insertTask(c, { agent, input, policy: opts.policy, runAt, actor: "test" }),
    );
    return taskId;
  }

  const release = async (id: string) => {
    await pool.query("update tasks set run_at = now() where id = $1", [id]);
  };

  async function task(id: string): Promise<TaskRow> {
    const { rows } = await pool.query<TaskRow>(
      "select status, dead_reason, attempts, version, run_at, result, last_error from tasks where id = $1",
      [id],
    );
    const row = rows[0];
    if (!row) throw new Error(`no task ${id}`);
    return row;
  }

  async function entries(id: string): Promise<EntryRow[]> {
    const { rows } = await pool.query<EntryRow>(
      "select kind, actor, key, data from ledger_entries where task_id = $1 order by seq",
      [id],
    );
    return rows;
  }

  const kinds = async (id: string) => (await entries(id)).map((e) => e.kind);
  /** Each attempt's start (either form: attempt-start.ts), with the kind of the entry it rides on. */
  const starts = async (id: string) =>
    (await entries(id)).flatMap((e) => {
      // The time is not read here (it is the claim's, or the entry's for the older form).
      const start = attemptStartOf({ ...e, at: new Date(0) });
      return start ? [{ on: e.kind, attempt: start.attempt, actor: start.actor }] : [];
    });

  async function effects(id: string): Promise<EffectRow[]> {
    const { rows } = await pool.query<EffectRow>(
      `select key, step_seq, status, attempts, lease_owner, fingerprint, args, result
       from effects where task_id = $1 order by step_seq`,
      [id],
    );
    return rows;
  }

  /** Polls until `test` holds for the task, or fails with its state and ledger. */
  async function waitFor(
    id: string,
    test: (row: TaskRow, entries: EntryRow[]) => boolean | Promise<boolean>,
    timeoutMs = 10_000,
  ): Promise<TaskRow> {
    const until = Date.now() + timeoutMs;
    while (Date.now() < until) {
      // The ledger first: the row read after it is at least as new as the entries.
      const seen = await entries(id);
      const row = await task(id);
      if (await test(row, seen)) return row;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(
      `task ${id} never got there: ${JSON.stringify(await task(id))} ${JSON.stringify(await kinds(id))}`,
    );
  }

  const settle = (id: string, timeoutMs?: number) =>
    waitFor(id, (row) => FINAL.includes(row.status), timeoutMs);

  /**
   * Claims one runnable task of `agents` as `worker` and runs its attempt to the end. Nothing
   * renews the lease, so a short `leaseMs` makes this worker lose the task mid-attempt.
   */
  async function runOneAttempt(
    worker: string,
    agents: readonly Agent[],
    opts: {
      leaseMs?: number;
      effectLeaseMs?: number;
      signal?: AbortSignal;
      model?: ModelClient;
      callbacks?: CallbackSigning;
    } = {},
  ): Promise<{ taskId: string; outcome: AttemptOutcome } | null> {
    const [claimed] = await claimBatch(
      pool,
      worker,
      agents.map((a) => a.name),
      1,
      opts.leaseMs ?? 5_000,
    );
    if (!claimed) return null;
    const outcome = await runAttempt(
      {
        pool,
        worker,
        agents: new Map(agents.map((a) => [a.name, a])),
        effectLeaseMs: opts.effectLeaseMs ?? opts.leaseMs ?? 5_000,
        signal: opts.signal ?? new AbortController().signal,
        random: () => 0,
        model: opts.model,
        callbacks: opts.callbacks,
        ...attemptBatchers(pool, worker),
      },
      claimed,
    );
    return { taskId: claimed.task.id, outcome };
  }

  return {
    enqueue,
    release,
    task,
    entries,
    kinds,
    starts,
    effects,
    waitFor,
    settle,
    runOneAttempt,
  };
}

/** A promise with its resolver, for tools a test holds in flight and lets go of. */
export function gate(): { wait: Promise<void>; open: () => void } {
  let open: () => void = () => {};
  const wait = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { wait, open };
}

/** Inserts the global retry policy a test file runs under. */
export async function setGlobalPolicy(
  pool: pg.Pool,
  p: { maxAttempts: number; backoffMs: number; attemptTimeoutMs: number },
): Promise<void> {
  await pool.query(
    `insert into retry_policies (scope, max_attempts, backoff_initial_ms, backoff_factor, backoff_max_ms, attempt_timeout_ms, updated_by)
     values ('global', $1, $2, 1, $2, $3, 'test')`,
    [p.maxAttempts, p.backoffMs, p.attemptTimeoutMs],
  );
}

/** The worker's two group commits, as startWorker wires them. */
function attemptBatchers(pool: pg.Pool, worker: string) {
  const effects = effectBatchers(pool, worker);
  return { effects, complete: completionBatcher(pool, worker, effects) };
}

/**
 * An agent with one tool (`ping_<name>`) that counts its provider calls, rate-limited as given.
 * A limit belongs to the tool's name (every agent that has the tool shares it), so each agent's
 * tool has its own.
 */
export function pingAgent(name: string, rateLimit?: RateLimitSpec) {
  const calls: number[] = [];
  const tool = defineTool({
    name: `ping_${name.replaceAll("-", "_")}`,
    input: z.object({ n: z.number() }),
    intent: (a) => a,
    ...(rateLimit ? { rateLimit } : {}),
    execute: async (a) => {
      calls.push(Date.now());
      return { pong: a.n };
    },
  });
  const agent = defineAgent({
    name,
    input: z.object({ n: z.number() }),
    tools: { [tool.name]: tool },
    run: (ctx, input) => ctx.tool(tool.name, { n: input.n }),
  });
  return { agent, tool: tool.name, calls };
}
