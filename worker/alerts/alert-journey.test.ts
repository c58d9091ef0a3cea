// The alert journey on real PostgreSQL and a real HTTP receiver: a task dead-letters, the
// evaluator enqueues one delivery, and the webhook sink receives exactly one signed request;
// then the same with the delivering worker SIGKILLed after sending and before recording: the
// next worker resends with the same webhook-id, so the receiver acts once.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { setUpTestDatabase } from "../../db/testing/database";
import { operator } from "../../lib/domain/access";
import { ALERT_DELIVERY_AGENT, alertEnqueueKey } from "../../lib/domain/alerts";
import { verifyWebhook } from "../../lib/domain/alerts-signature";
import { childEnv } from "../../lib/env";
import { defineAgent } from "../../lib/sdk/define";
import { NonRetryableError } from "../../lib/sdk/errors";
import { createAlertRule } from "../../lib/server/commands/create-alert-rule";
import { evaluateAlerts } from "../../lib/server/commands/evaluate-alerts";
import { getAlertDestination } from "../../lib/server/queries/get-alert-destination";
import { alertDeliveryAgent } from "../agents/alert-delivery";
import { startWebhookSink, type WebhookSink } from "../demo/webhook-sink";
import { runtimeTestKit } from "../runtime/test-support";
import { startWorker } from "../runtime/worker";
import type { RunningWorker } from "../runtime/worker-config";
import { startAlertEvaluator } from "./evaluator";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const LEASE_MS = 1_500;
const OTHER_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

const db = await setUpTestDatabase("alerts");
const kit = runtimeTestKit(db.pool);

const doomed = defineAgent({
  name: "doomed",
  input: z.object({ n: z.number() }),
  tools: {},
  run: async () => {
    throw new NonRetryableError("this task always fails");
  },
});
const delivery = alertDeliveryAgent({
  loadDestination: (id) => getAlertDestination(db.pool, id),
});

let sink: WebhookSink;
let ruleId: string;
let secret: string;
const workers: RunningWorker[] = [];
const children: ChildProcess[] = [];

beforeAll(async () => {
  sink = await startWebhookSink({ secrets: [] });
  const created = await createAlertRule(db.pool, operator("user:admin@example.com"), {
    name: "doomed dead letters",
    kind: "dead_letter",
    agent: "doomed",
    destination: "webhook",
    url: `${sink.url}/hooks/agent-ledger`,
  });
  if (!created.ok || !created.value.secret) throw new Error("could not create the rule");
  ruleId = created.value.id;
  secret = created.value.secret;
  sink.addSecret(secret);
});

afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  }
  await Promise.all(workers.splice(0).map((w) => w.stop(1_000)));
});
afterAll(async () => {
  await sink.stop();
});

async function deadTask(n: number): Promise<{ taskId: string; entryId: string }> {
  const taskId = await kit.enqueue("doomed", { n });
  const worker = await startWorker({ pool: db.pool, agents: [doomed], concurrency: 1 });
  await kit.waitFor(taskId, (row) => row.status === "dead");
  await worker.stop(1_000);
  const { rows } = await db.pool.query<{ id: string }>(
    "select id::text from ledger_entries where task_id = $1 and kind = 'task.dead_lettered'",
    [taskId],
  );
  const entryId = rows[0]?.id;
  if (!entryId) throw new Error("no dead-letter entry");
  return { taskId, entryId };
}

async function alertTaskFor(entryId: string): Promise<string> {
  const { rows } = await db.pool.query<{ id: string }>(
    "select id from tasks where agent = $1 and enqueue_key = $2",
    [ALERT_DELIVERY_AGENT, alertEnqueueKey(ruleId, `ledger:${entryId}`)],
  );
  const id = rows[0]?.id;
  if (!id) throw new Error(`no alert task for entry ${entryId}`);
  return id;
}

async function until(test: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await test())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The requests the sink received for one alert task's effect (its key is the webhook-id). */
async function requestsFor(alertTaskId: string) {
  const [effect] = await kit.effects(alertTaskId);
  if (!effect) throw new Error("the alert task has no effect");
  return { key: effect.key, requests: sink.requests().filter((r) => r.id === effect.key) };
}

describe("alert journey", () => {
  it("a dead letter reaches the webhook once, signed with the rule's secret", async () => {
    const evaluator = startAlertEvaluator({ pool: db.pool, intervalMs: 100 });
    const worker = await startWorker({
      pool: db.pool,
      agents: [delivery],
      concurrency: 2,
      leaseMs: LEASE_MS,
    });
    workers.push(worker);
    const { taskId, entryId } = await deadTask(1);
    await until(async () => {
      const { rows } = await db.pool.query(
        "select 1 from tasks where enqueue_key = $1 and status = 'succeeded'",
        [alertEnqueueKey(ruleId, `ledger:${entryId}`)],
      );
      return rows.length === 1;
    }, "the alert delivery to succeed");
    await evaluator.stop();
    // Evaluating again (another process, a restart) finds the delivery already enqueued.
    expect((await evaluateAlerts(db.pool)).enqueued).toBe(0);

    const alertTaskId = await alertTaskFor(entryId);
    const { key, requests } = await requestsFor(alertTaskId);
    expect(requests).toHaveLength(1);
    const [request] = requests;
    if (!request || request.timestamp === null) throw new Error("no request");
    expect(request.path).toBe("/hooks/agent-ledger");
    expect(request.verified).toBe(true);
    // Verified here too, independently of the sink, and refused under another secret.
    const msg = { id: key, timestamp: request.timestamp, body: request.body };
    expect(request.signature).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(verifyWebhook(secret, msg, request.signature, request.timestamp)).toBe(true);
    expect(verifyWebhook(OTHER_SECRET, msg, request.signature, request.timestamp)).toBe(false);
    const body = JSON.parse(request.body) as { type: string; data: Record<string, unknown> };
    expect(body.type).toBe("alert.dead_letter");
    expect(body.data).toMatchObject({ ruleId, taskId, agent: "doomed", reason: "non_retryable" });
    expect(key).toMatch(/^[0-9a-f]{64}$/);

    // The rule change is in the system stream, and its secret is nowhere in the ledger.
    const { rows: entries } = await db.pool.query<{ kind: string; data: unknown }>(
      "select kind, data from ledger_entries where stream = 'system' and kind like 'alert_rule.%'",
    );
    expect(entries.map((e) => e.kind)).toEqual(["alert_rule.created"]);
    const { rows: leaks } = await db.pool.query(
      "select 1 from ledger_entries where data::text like '%' || $1 || '%'",
      [secret.slice("whsec_".length)],
    );
    expect(leaks).toHaveLength(0);
  });

  it("a worker killed between sending and recording: one distinct webhook-id, the receiver acts once", async () => {
    const { entryId } = await deadTask(2);
    expect((await evaluateAlerts(db.pool)).enqueued).toBe(1);
    const alertTaskId = await alertTaskFor(entryId);

    const child = spawn(process.execPath, ["--import", "tsx", "worker/alerts/journey-worker.ts"], {
      cwd: ROOT,
      env: childEnv({
        DATABASE_URL: db.appUrl,
        AGENT_LEDGER_LEASE_MS: String(LEASE_MS),
        AGENT_LEDGER_FAULT_POINTS: JSON.stringify({ "effect.returned": 1 }),
        LOG_LEVEL: "warn",
      }),
      stdio: ["ignore", "ignore", "pipe"],
    });
    children.push(child);
    const [code, signal] = (await once(child, "exit")) as [number | null, NodeJS.Signals | null];
    // It died at the fault point: the sink answered, nothing recorded the answer.
    expect({ code, signal }).toEqual({ code: null, signal: "SIGKILL" });
    const sent = await requestsFor(alertTaskId);
    expect(sent.requests).toHaveLength(1);
    expect((await kit.effects(alertTaskId))[0]?.status).toBe("started");

    // A new worker reaps the dead one's lease and finds the effect's outcome unknown.
    workers.push(
      await startWorker({ pool: db.pool, agents: [delivery], concurrency: 1, leaseMs: LEASE_MS }),
    );
    const done = await kit.settle(alertTaskId, 30_000);
    expect(done.status).toBe("succeeded");

    const { key, requests } = await requestsFor(alertTaskId);
    // The runtime resent (the webhook tool is provider-idempotent) with the SAME webhook-id.
    expect(requests.length).toBeGreaterThanOrEqual(2);
    expect(new Set(requests.map((r) => r.id))).toEqual(new Set([key]));
    expect(requests.every((r) => r.verified)).toBe(true);
    expect(requests.filter((r) => !r.duplicate)).toHaveLength(1);
    expect(sink.accepted().filter((r) => r.id === key)).toHaveLength(1);
    for (const r of requests) {
      const msg = { id: key, timestamp: r.timestamp ?? 0, body: r.body };
      expect(verifyWebhook(secret, msg, r.signature, r.timestamp ?? 0)).toBe(true);
    }
    const kinds = await kit.kinds(alertTaskId);
    expect(kinds).toContain("worker.lost");
    const unknown = (await kit.entries(alertTaskId)).find(
      (e) => e.kind === "effect.outcome_unknown",
    );
    expect(unknown?.data).toMatchObject({ action: "resend" });
  });
});
