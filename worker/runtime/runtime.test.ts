// The runtime end to end on real PostgreSQL: workers claim, run, journal, retry, dead-letter.
// The tools' "providers" are in-process counters, so every delivery can be counted.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { withTransaction } from "../../db/client";
import { setUpTestDatabase } from "../../db/testing/database";
import { deriveEffectKey, payloadFingerprint } from "../../lib/domain/hash";
import { type Agent, defineAgent, defineTool } from "../../lib/sdk/define";
import { EffectNotPerformedError, NonRetryableError } from "../../lib/sdk/errors";
import { insertTask } from "../../lib/server/commands/enqueue-task";
import { verifyLedger } from "../../lib/server/ledger/verify-ledger";
import { startWorker } from "./worker";
import type { RunningWorker } from "./worker-config";

const t = await setUpTestDatabase("runtime");

const deliveries = new Map<string, number>();
const count = (what: string) => deliveries.get(what) ?? 0;
const deliver = (what: string) => deliveries.set(what, count(what) + 1);
/** Per-test switches the agents read, keyed by a marker in the task input. */
const behaviour = new Map<string, { failTimes?: number; hang?: boolean }>();

const sendEmail = defineTool({
  name: "send_email",
  input: z.object({ to: z.string().email(), invoiceId: z.string(), body: z.string() }),
  intent: (a) => ({ to: a.to, invoiceId: a.invoiceId }),
  execute: async (a, { idempotencyKey }) => {
    deliver(`email:${a.invoiceId}`);
    return { messageId: `<${idempotencyKey}@example.com>` };
  },
  sensitive: ["body"],
});

const flakyCharge = defineTool({
  name: "charge",
  input: z.object({ id: z.string() }),
  intent: (a) => ({ id: a.id }),
  providerIdempotent: true,
  execute: async (a) => {
    const b = behaviour.get(a.id);
    if (b?.failTimes && b.failTimes > 0) {
      b.failTimes -= 1;
      throw new EffectNotPerformedError("502 from the gateway");
    }
    deliver(`charge:${a.id}`);
    return { chargeId: `ch_${a.id}` };
  },
});

const notifier = defineAgent({
  name: "notifier",
  input: z.object({ invoiceId: z.string(), to: z.string(), marker: z.string().default("") }),
  tools: { send_email: sendEmail, charge: flakyCharge },
  run: async (ctx, input) => {
    const text = await ctx.step("compose", async () => {
      deliver(`compose:${input.invoiceId}`);
      return `Invoice ${input.invoiceId} is due`;
    });
    const sent = await ctx.tool("send_email", {
      to: input.to,
      invoiceId: input.invoiceId,
      body: text,
    });
    const b = behaviour.get(input.marker);
    if (b?.failTimes && b.failTimes > 0) {
      b.failTimes -= 1;
      throw new Error("crashed after sending");
    }
    if (b?.hang) await new Promise((r) => setTimeout(r, 60_000));
    if (input.marker === "fatal") throw new NonRetryableError("the customer does not exist");
    if (input.marker === "charge") await ctx.tool("charge", { id: input.invoiceId });
    if (input.marker === "sleep") await ctx.sleep(300);
    return { sent };
  },
});

const diverging = defineAgent({
  name: "diverging",
  input: z.object({ n: z.number() }),
  tools: {},
  run: async (ctx, input) => {
    if (ctx.attempt === 1) {
      await ctx.step("first", async () => 1);
      throw new Error("retry me");
    }
    await ctx.step(`renamed-${input.n}`, async () => 2);
    return null;
  },
});

const agents: Agent[] = [notifier, diverging];
let workers: RunningWorker[] = [];

beforeAll(async () => {
  await t.pool.query(
    `insert into retry_policies (scope, max_attempts, backoff_initial_ms, backoff_factor, backoff_max_ms, attempt_timeout_ms, updated_by)
     values ('global', 3, 10, 1, 10, 5000, 'test')`,
  );
  workers = await Promise.all(
    [1, 2].map((i) =>
      startWorker({
        pool: t.pool,
        agents,
        concurrency: 8,
        // Long enough that a loaded CI box's heartbeat never lets a lease lapse mid-attempt (with
        // 1 s, one did, and a task counted an attempt more than its tool's failures); no test
        // here waits for a lease to run out (the reaped one plants an expired lease itself).
        leaseMs: 5_000,
        pollMs: 50,
        id: `w${i}`,
        log: () => {},
      }),
    ),
  );
});
afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop(1_000)));
});

async function enqueue(
  agent: string,
  input: unknown,
  policy?: Record<string, unknown>,
  opts: { held?: boolean } = {},
): Promise<string> {
  // A held task waits an hour, so a test can stage what an earlier crashed attempt left.
  const runAt = opts.held ? new Date(Date.now() + 3_600_000) : undefined;
  const { taskId } = await withTransaction(t.pool, (c) =>
    insertTask(c, { agent, input, policy, runAt, actor: "test" }),
  );
  return taskId;
}

const release = (id: string) => t.pool.query("update tasks set run_at = now() where id = $1", [id]);

type TaskState = {
  status: string;
  dead_reason: string | null;
  attempts: number;
  last_error: { message: string } | null;
};

async function settle(id: string, timeoutMs = 15_000): Promise<TaskState> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const { rows } = await t.pool.query<TaskState>(
      "select status, dead_reason, attempts, last_error from tasks where id = $1",
      [id],
    );
    const row = rows[0];
    if (row && ["succeeded", "dead", "rejected", "cancelled"].includes(row.status)) return row;
    await new Promise((r) => setTimeout(r, 25));
  }
  const { rows } = await t.pool.query(
    "select status, attempts, policy, last_error, lease_owner from tasks where id = $1",
    [id],
  );
  const { rows: entries } = await t.pool.query(
    "select kind, data from ledger_entries where task_id = $1 order by seq",
    [id],
  );
  throw new Error(
    `task ${id} did not settle: ${JSON.stringify(rows[0])} ${JSON.stringify(entries)}`,
  );
}

async function kinds(id: string): Promise<string[]> {
  const { rows } = await t.pool.query(
    "select kind from ledger_entries where task_id = $1 order by seq",
    [id],
  );
  return rows.map((r) => r.kind);
}

describe("worker runtime", () => {
  it("runs an agent: a step, an effect, the result, all in the ledger", async () => {
    const id = await enqueue("notifier", { invoiceId: "inv-1", to: "ada@example.com" });
    expect(await settle(id)).toMatchObject({ status: "succeeded", attempts: 1 });
    expect(count("email:inv-1")).toBe(1);
    expect(await kinds(id)).toEqual([
      "task.enqueued",
      "step.completed",
      "effect.succeeded",
      "task.succeeded",
    ]);
    // The claims wrote no entry: the attempt's start rides on its first one, the effect's claim
    // (its arguments, redacted) on its result.
    const { rows: started } = await t.pool.query(
      "select kind, data->'attemptStarted' as start from ledger_entries where task_id = $1 and data ? 'attemptStarted'",
      [id],
    );
    expect(started).toEqual([
      {
        kind: "step.completed",
        start: expect.objectContaining({ attempt: 1, agent: "notifier", at: expect.any(String) }),
      },
    ]);
    const { rows } = await t.pool.query(
      "select at, data from ledger_entries where task_id = $1 and kind = 'effect.succeeded'",
      [id],
    );
    const claim = rows[0].data.effectStarted;
    expect(claim.args.body).toBe("[redacted]");
    expect(claim.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(new Date(claim.at).getTime()).toBeLessThanOrEqual(rows[0].at.getTime());
  });

  it("a retry after a crash replays journaled steps and never re-sends the effect", async () => {
    behaviour.set("crash-once", { failTimes: 1 });
    const id = await enqueue("notifier", {
      invoiceId: "inv-2",
      to: "b@example.com",
      marker: "crash-once",
    });
    expect(await settle(id)).toMatchObject({ status: "succeeded", attempts: 2 });
    expect(count("compose:inv-2")).toBe(1);
    expect(count("email:inv-2")).toBe(1);
    const k = await kinds(id);
    expect(k.filter((x) => x === "attempt.failed")).toHaveLength(1);
    expect(k).toContain("retry.scheduled");
  });

  it("a tool that says it did not act is retried with the same key until it works", async () => {
    behaviour.set("inv-3", { failTimes: 2 });
    const id = await enqueue(
      "notifier",
      { invoiceId: "inv-3", to: "c@example.com", marker: "charge" },
      { maxAttempts: 5 },
    );
    expect(await settle(id)).toMatchObject({ status: "succeeded", attempts: 3 });
    expect(count("charge:inv-3")).toBe(1);
    expect(count("email:inv-3")).toBe(1);
    const { rows } = await t.pool.query(
      "select status, attempts from effects where task_id = $1 and tool = 'charge'",
      [id],
    );
    expect(rows[0]).toEqual({ status: "succeeded", attempts: 3 });
  });

  it("stops at the retry limit: dead, reason exhausted, with the last error", async () => {
    behaviour.set("always", { failTimes: 99 });
    const id = await enqueue("notifier", {
      invoiceId: "inv-4",
      to: "d@example.com",
      marker: "always",
    });
    const task = await settle(id);
    expect(task).toMatchObject({ status: "dead", dead_reason: "exhausted", attempts: 3 });
    expect(task.last_error?.message).toBe("crashed after sending");
    expect(count("email:inv-4")).toBe(1);
    expect((await kinds(id)).at(-1)).toBe("task.dead_lettered");
  });

  it("a non-retryable error dead-letters at once", async () => {
    const id = await enqueue("notifier", {
      invoiceId: "inv-5",
      to: "e@example.com",
      marker: "fatal",
    });
    expect(await settle(id)).toMatchObject({
      status: "dead",
      dead_reason: "non_retryable",
      attempts: 1,
    });
  });

  it("invalid task input is non-retryable and says what was wrong", async () => {
    const id = await enqueue("notifier", { invoiceId: 42 });
    const task = await settle(id);
    expect(task).toMatchObject({ status: "dead", dead_reason: "non_retryable", attempts: 1 });
    expect(task.last_error?.message).toMatch(/invalid task input.*invoiceId/s);
  });

  it("code that diverges from its journal fails naming both steps", async () => {
    const id = await enqueue("diverging", { n: 7 });
    const task = await settle(id);
    expect(task).toMatchObject({ status: "dead", dead_reason: "non_retryable", attempts: 2 });
    expect(task.last_error?.message).toBe(
      'journal divergence at step 1: the journal has step "first", the code now calls step "renamed-7"',
    );
  });

  it("an attempt past attemptTimeoutMs is aborted; the last one dead-letters as timeout", async () => {
    behaviour.set("hang", { hang: true });
    const id = await enqueue(
      "notifier",
      { invoiceId: "inv-6", to: "f@example.com", marker: "hang" },
      { attemptTimeoutMs: 150, maxAttempts: 2 },
    );
    const task = await settle(id);
    expect(task).toMatchObject({ status: "dead", dead_reason: "timeout", attempts: 2 });
    expect(count("email:inv-6")).toBe(1);
  });

  it("a durable sleep puts the task back in the queue and resumes after it", async () => {
    const id = await enqueue("notifier", {
      invoiceId: "inv-7",
      to: "g@example.com",
      marker: "sleep",
    });
    expect(await settle(id)).toMatchObject({ status: "succeeded", attempts: 1 });
    const k = await kinds(id);
    expect(k).toContain("task.requeued");
    // Two claims, two starts, each on its attempt's first entry.
    const { rows: started } = await t.pool.query(
      "select data->'attemptStarted'->'attempt' as attempt from ledger_entries where task_id = $1 and data ? 'attemptStarted'",
      [id],
    );
    expect(started).toHaveLength(2);
    expect(count("email:inv-7")).toBe(1);
  });

  describe("an effect whose earlier claim expired without a result (outcome unknown)", () => {
    async function plantStartedEffect(taskId: string, tool: string, intent: object, args: object) {
      const key = deriveEffectKey(taskId, tool, intent as never);
      await t.pool.query(
        `insert into effects (key, task_id, step_seq, tool, intent, args, fingerprint, status, lease_owner, lease_expires_at, created_at)
         values ($1, $2, 2, $3, $4, $5, $6, 'started', 'crashed-worker', now() - interval '1 minute', now() - interval '2 minutes')`,
        [
          key,
          taskId,
          tool,
          JSON.stringify(intent),
          JSON.stringify(args),
          payloadFingerprint(args as never),
        ],
      );
      return key;
    }

    it("dead-letters a tool that cannot be asked or safely resent", async () => {
      const id = await enqueue("notifier", { invoiceId: "inv-8", to: "h@example.com" }, undefined, {
        held: true,
      });
      await t.pool.query(
        "insert into steps (task_id, seq, kind, name, status, result, attempt, completed_at) values ($1, 1, 'step', 'compose', 'completed', $2, 1, now())",
        [id, JSON.stringify("Invoice inv-8 is due")],
      );
      await plantStartedEffect(
        id,
        "send_email",
        { to: "h@example.com", invoiceId: "inv-8" },
        {
          to: "h@example.com",
          invoiceId: "inv-8",
          body: "[redacted]",
        },
      );
      await release(id);
      const task = await settle(id);
      expect(task).toMatchObject({ status: "dead", dead_reason: "outcome_unknown" });
      expect(count("email:inv-8")).toBe(0);
      expect(await kinds(id)).toContain("effect.outcome_unknown");
    });

    it("resends a provider-idempotent tool with the same key", async () => {
      const id = await enqueue(
        "notifier",
        { invoiceId: "inv-9", to: "i@example.com", marker: "charge" },
        undefined,
        { held: true },
      );
      await plantStartedEffect(id, "charge", { id: "inv-9" }, { id: "inv-9" });
      await release(id);
      expect(await settle(id)).toMatchObject({ status: "succeeded" });
      expect(count("charge:inv-9")).toBe(1);
    });
  });

  it("the same intent with different arguments is a payload mismatch: dead, both payloads recorded", async () => {
    const id = await enqueue("notifier", { invoiceId: "inv-10", to: "j@example.com" }, undefined, {
      held: true,
    });
    const key = deriveEffectKey(id, "send_email", { to: "j@example.com", invoiceId: "inv-10" });
    const first = { to: "j@example.com", invoiceId: "inv-10", body: "[redacted]", cc: "x" };
    await t.pool.query(
      `insert into effects (key, task_id, step_seq, tool, intent, args, fingerprint, status, result, completed_at)
       values ($1, $2, 2, 'send_email', '{}', $3, $4, 'succeeded', '{"messageId":"<old>"}', now())`,
      [key, id, JSON.stringify(first), payloadFingerprint(first)],
    );
    await release(id);
    expect(await settle(id)).toMatchObject({ status: "dead", dead_reason: "payload_mismatch" });
    const { rows } = await t.pool.query(
      "select data from ledger_entries where task_id = $1 and kind = 'effect.payload_mismatch'",
      [id],
    );
    expect(rows[0].data.first.args).toEqual(first);
    expect(rows[0].data.second.fingerprint).not.toBe(rows[0].data.first.fingerprint);
    expect(count("email:inv-10")).toBe(0);
  });

  it("a crashed worker's lease is reaped: worker.lost, counted as an attempt, then retried", async () => {
    const id = await enqueue("notifier", { invoiceId: "inv-11", to: "k@example.com" }, undefined, {
      held: true,
    });
    // Pretend a worker claimed it and died: running, lease expired.
    const { rowCount } = await t.pool.query(
      `update tasks set status = 'running', attempts = 1, run_at = now(), lease_owner = 'dead-worker',
         lease_expires_at = now() - interval '1 second'
       where id = $1 and status = 'queued'`,
      [id],
    );
    expect(rowCount).toBe(1);
    expect(await settle(id)).toMatchObject({ status: "succeeded", attempts: 2 });
    expect(await kinds(id)).toContain("worker.lost");
  });

  it("two workers, 60 tasks: each succeeds once, each email sent once, the ledger verifies", async () => {
    const ids = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        enqueue("notifier", { invoiceId: `bulk-${i}`, to: "bulk@example.com" }),
      ),
    );
    const states = await Promise.all(ids.map((id) => settle(id, 30_000)));
    expect(states.every((s) => s.status === "succeeded")).toBe(true);
    for (let i = 0; i < 60; i++) expect(count(`email:bulk-${i}`)).toBe(1);
    const report = await verifyLedger(t.pool);
    expect(report.problems).toEqual([]);
  });
});
