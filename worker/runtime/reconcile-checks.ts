// "Check with the provider", the worker's half: a reviewer's pending check (reconcile_checks,
// recorded by lib/server/commands/request-reconcile) is claimed by a worker that runs the task's
// agent, which calls the tool's reconcile with the effect's key and arguments and records what
// the provider said, in the check and in the task's ledger. The effect itself is never changed
// here: the reviewer still resolves it, now with the provider's answer in front of them.
import type pg from "pg";
import { withTransaction } from "../../db/client";
import { isConnectionError } from "../../db/retry";
import { type JsonValue, toJsonValue } from "../../lib/domain/json";
import type { ReconcileAnswer } from "../../lib/domain/reconcile-checks";
import { redact } from "../../lib/domain/redact";
import { errorFields, type Logger } from "../../lib/log";
import type { Agent, Tool } from "../../lib/sdk/define";
import { appendLedger, taskStream } from "../../lib/server/ledger/append-ledger";
import { type SerializedError, serializeError } from "./errors";

type ClaimedCheck = {
  id: string;
  task_id: string;
  effect_key: string;
  agent: string;
  tool: string;
  requested_by: string;
  requested_at: Date;
  args: JsonValue;
};

/**
 * Claims the oldest pending check of one of `agents` whose claim is free (never taken, or its
 * worker stopped before answering: asking a provider is a read, so asking again is harmless).
 */
async function claimCheck(
  pool: pg.Pool,
  worker: string,
  agents: readonly string[],
  claimMs: number,
): Promise<ClaimedCheck | null> {
  const { rows } = await pool.query<ClaimedCheck>({
    name: "runtime_claim_reconcile_check",
    text: `update reconcile_checks c set claimed_by = $1,
             claim_expires_at = now() + $3 * interval '1 millisecond'
           from effects e
           where c.id = (
             select id from reconcile_checks
             where status = 'pending' and agent = any($2::text[])
               and (claim_expires_at is null or claim_expires_at < now())
             order by id limit 1 for update skip locked
           ) and e.key = c.effect_key
           returning c.id, c.task_id, c.effect_key, c.agent, c.tool, c.requested_by,
                     c.requested_at, e.args`,
    values: [worker, agents, claimMs],
  });
  return rows[0] ?? null;
}

/** What the provider said, or why it could not be asked. */
type Said =
  | { happened: true; result: JsonValue }
  | { happened: false }
  | { error: SerializedError };

/** Asks the provider; every way it can go wrong is an answer too ("could not be asked"). */
async function ask(
  check: ClaimedCheck,
  tool: Tool | undefined,
  signal: AbortSignal,
): Promise<Said> {
  if (!tool?.reconcile) {
    return {
      error: {
        name: "NoReconcile",
        message: `${check.tool} has no reconcile in the code this worker runs: check with the provider by hand`,
      },
    };
  }
  const parsed = tool.input.safeParse(check.args);
  if (!parsed.success) {
    return {
      error: {
        name: "InvalidArguments",
        message: `the effect's recorded arguments do not pass ${tool.name}'s schema (sensitive fields are stored redacted): ${parsed.error.message.slice(0, 500)}`,
      },
    };
  }
  try {
    const outcome = await tool.reconcile(check.effect_key, parsed.data, { signal });
    if (!outcome.happened) return { happened: false };
    const result = redact(toJsonValue(outcome.result, `${tool.name} result`), tool.sensitive ?? []);
    return { happened: true, result };
  } catch (err) {
    return { error: serializeError(err) };
  }
}

/** Records the answer, unless our claim lapsed and another worker took the check over. */
async function record(
  pool: pg.Pool,
  worker: string,
  check: ClaimedCheck,
  answer: Said,
): Promise<boolean> {
  const stored: ReconcileAnswer = "error" in answer ? { error: answer.error.message } : answer;
  const failed = "error" in answer;
  const actor = `worker:${worker}`;
  return withTransaction(pool, async (client) => {
    const done = await client.query({
      name: "runtime_answer_reconcile_check",
      text: `update reconcile_checks set status = $2, answer = $3, answered_by = $4,
               answered_at = now(), claimed_by = null, claim_expires_at = null
             where id = $1 and status = 'pending' and claimed_by = $5`,
      values: [check.id, failed ? "failed" : "answered", JSON.stringify(stored), actor, worker],
    });
    if (done.rowCount !== 1) return false;
    const asked = {
      tool: check.tool,
      check: Number(check.id),
      requestedBy: check.requested_by,
      requestedAt: check.requested_at.toISOString(),
    };
    await appendLedger(client, taskStream(check.task_id), {
      kind: failed ? "effect.reconcile_failed" : "effect.reconciled",
      actor,
      taskId: check.task_id,
      key: check.effect_key,
      data: "error" in answer ? { ...asked, error: answer.error } : { ...asked, ...answer },
    });
    return true;
  });
}

async function release(pool: pg.Pool, worker: string, check: ClaimedCheck): Promise<void> {
  await pool.query({
    name: "runtime_release_reconcile_check",
    text: `update reconcile_checks set claimed_by = null, claim_expires_at = null
           where id = $1 and status = 'pending' and claimed_by = $2`,
    values: [check.id, worker],
  });
}

export type CheckRunOptions = {
  pool: pg.Pool;
  worker: string;
  agents: ReadonlyMap<string, Agent>;
  /** How long a claim holds; the provider call is aborted after it. */
  claimMs: number;
  signal?: AbortSignal;
};

/** Answers one pending check; false when there was none for these agents. */
export async function answerNextCheck(opts: CheckRunOptions): Promise<boolean> {
  const check = await claimCheck(opts.pool, opts.worker, [...opts.agents.keys()], opts.claimMs);
  if (!check) return false;
  const tool = Object.values(opts.agents.get(check.agent)?.tools ?? {}).find(
    (t) => t.name === check.tool,
  );
  const timeout = AbortSignal.timeout(opts.claimMs);
  const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
  const answer = await ask(check, tool, signal);
  // Stopping cut the call short: that is no answer from the provider, so the next worker asks.
  if (opts.signal?.aborted) {
    await release(opts.pool, opts.worker, check);
    return true;
  }
  await record(opts.pool, opts.worker, check, answer);
  return true;
}

export type CheckRunner = { wake: () => void; stop: () => Promise<void> };

/**
 * The loop beside the task loop: woken by the tasks channel (the request notifies it) and by
 * polling, it answers checks one at a time so a slow provider never holds up task claims.
 */
export function startCheckRunner(
  opts: Omit<CheckRunOptions, "signal"> & { pollMs: number; log: Logger },
): CheckRunner {
  const stopping = new AbortController();
  let wake: () => void = () => {};
  const loop = (async () => {
    if (opts.agents.size === 0) return;
    while (!stopping.signal.aborted) {
      let answered = false;
      try {
        answered = await answerNextCheck({ ...opts, signal: stopping.signal });
      } catch (err) {
        // The next poll tries again. An outage is the task loops' to report, once.
        if (!isConnectionError(err)) {
          opts.log.warn(errorFields(err), "could not answer a provider check");
        }
      }
      if (answered || stopping.signal.aborted) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, opts.pollMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = () => {};
    }
  })();
  return {
    wake: () => wake(),
    stop: async () => {
      stopping.abort();
      wake();
      await loop;
    },
  };
}
