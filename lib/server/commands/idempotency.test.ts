// The Idempotency-Key store against real rows: a key runs its work once and replays the first
// response; another body is a mismatch; a key in flight answers in_flight; keys are per caller
// and operation; expired keys run again and are purged; a failed work leaves the key free.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { SqlClient } from "../../../db/client";
import { setUpTestDatabase } from "../../../db/testing/database";
import { insertTask } from "./enqueue-task";
import {
  type IdempotencyScope,
  type IdempotentOutcome,
  purgeExpiredIdempotencyKeys,
  requestFingerprint,
  runIdempotent,
  type WorkResponse,
} from "./idempotency";

const t = await setUpTestDatabase("idempotency");

const OPERATION = "POST /api/v1/tasks";
const HOUR = 60 * 60 * 1000;

function scope(key: string, body: unknown, over: Partial<IdempotencyScope> = {}) {
  return {
    principal: "token:billing",
    operation: OPERATION,
    key,
    fingerprint: requestFingerprint(body),
    retentionMs: HOUR,
    ...over,
  };
}

/** A work that enqueues a real task, as POST /tasks will, and counts its runs. */
function enqueueWork(agent: string, input: unknown) {
  const counter = { runs: 0 };
  const work = async (client: SqlClient): Promise<WorkResponse> => {
    counter.runs++;
    const { taskId } = await insertTask(client, { agent, input, actor: "token:billing" });
    return {
      status: 201,
      body: { taskId, agent, createdAt: new Date("2030-01-01T00:00:00Z") },
      headers: { Location: `/api/v1/tasks/${taskId}` },
    };
  };
  return { counter, work };
}

async function tasksOf(agent: string): Promise<string[]> {
  const { rows } = await t.pool.query<{ id: string }>(
    "select id from tasks where agent = $1 order by created_at",
    [agent],
  );
  return rows.map((r) => r.id);
}

async function keyRows(key: string) {
  const { rows } = await t.pool.query<{
    principal: string;
    operation: string;
    fingerprint: string;
    status: number;
    body: unknown;
    headers: unknown;
    retention_ms: number;
  }>(
    `select principal, operation, fingerprint, status, body, headers,
            (extract(epoch from expires_at - created_at) * 1000)::float8 as retention_ms
     from idempotency_keys where key = $1 order by principal, operation`,
    [key],
  );
  return rows;
}

async function expire(key: string) {
  await t.pool.query(
    `update idempotency_keys set created_at = now() - interval '2 hours',
       expires_at = now() - interval '1 hour' where key = $1`,
    [key],
  );
}

function fresh(outcome: IdempotentOutcome) {
  if (outcome.kind !== "fresh") throw new Error(`expected fresh, got ${outcome.kind}`);
  return outcome;
}

describe("runIdempotent", () => {
  it("runs the work once and replays its first response for the same key and body", async () => {
    const key = randomUUID();
    const body = { agent: "replay-agent", input: { n: 1, list: [1, 2] } };
    const { counter, work } = enqueueWork("replay-agent", body.input);

    const first = fresh(await runIdempotent(t.pool, scope(key, body), work));
    const [taskId] = await tasksOf("replay-agent");
    expect(first).toEqual({
      kind: "fresh",
      stored: true,
      status: 201,
      body: { taskId, agent: "replay-agent", createdAt: "2030-01-01T00:00:00.000Z" },
      headers: { Location: `/api/v1/tasks/${taskId}` },
    });

    // The same body with its members in another order is the same request.
    const reordered = { input: { list: [1, 2], n: 1 }, agent: "replay-agent" };
    const second = await runIdempotent(t.pool, scope(key, reordered), work);
    expect(second.kind).toBe("replay");
    if (second.kind !== "replay") return;
    expect({ status: second.status, body: second.body, headers: second.headers }).toEqual({
      status: first.status,
      body: first.body,
      headers: first.headers,
    });
    expect(second.createdAt).toBeInstanceOf(Date);
    expect(Date.now() - second.createdAt.getTime()).toBeLessThan(60_000);

    expect(counter.runs).toBe(1);
    expect(await tasksOf("replay-agent")).toEqual([taskId]);
    const rows = await keyRows(key);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      principal: "token:billing",
      operation: OPERATION,
      fingerprint: requestFingerprint(body),
      status: 201,
      retention_ms: HOUR,
    });
  });

  it("reports a mismatch with both fingerprints for the same key and another body, running nothing", async () => {
    const key = randomUUID();
    const { counter, work } = enqueueWork("mismatch-agent", { n: 1 });
    fresh(await runIdempotent(t.pool, scope(key, { n: 1 }), work));

    const other = await runIdempotent(t.pool, scope(key, { n: 2 }), work);
    expect(other).toEqual({
      kind: "mismatch",
      fingerprint: requestFingerprint({ n: 2 }),
      storedFingerprint: requestFingerprint({ n: 1 }),
    });
    expect(requestFingerprint({ n: 2 })).not.toBe(requestFingerprint({ n: 1 }));
    expect(counter.runs).toBe(1);
    expect(await tasksOf("mismatch-agent")).toHaveLength(1);
    expect((await keyRows(key))[0]?.fingerprint).toBe(requestFingerprint({ n: 1 }));
  });

  it("answers in_flight while the first request with the key is still running, then replays", async () => {
    const key = randomUUID();
    const { counter, work } = enqueueWork("inflight-agent", {});
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let started = () => {};
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const slow = runIdempotent(t.pool, scope(key, {}), async (client) => {
      started();
      await gate;
      return work(client);
    });
    await running;

    expect(await runIdempotent(t.pool, scope(key, {}), work)).toEqual({ kind: "in_flight" });
    // A different body while in flight is in_flight too: nothing is stored yet to compare with.
    expect(await runIdempotent(t.pool, scope(key, { other: true }), work)).toEqual({
      kind: "in_flight",
    });
    release();
    const first = fresh(await slow);
    const later = await runIdempotent(t.pool, scope(key, {}), work);
    expect(later).toMatchObject({ kind: "replay", body: first.body });
    expect(counter.runs).toBe(1);
    expect(await tasksOf("inflight-agent")).toHaveLength(1);
  });

  it("runs the work exactly once for 20 concurrent calls with one key and one body", async () => {
    const key = randomUUID();
    const body = { agent: "burst-agent", input: { burst: true } };
    const counter = { runs: 0 };
    const work = async (client: SqlClient): Promise<WorkResponse> => {
      counter.runs++;
      const { taskId } = await insertTask(client, {
        agent: "burst-agent",
        input: body.input,
        actor: "token:billing",
      });
      // Hold the key a while, so the others arrive while it is in flight.
      await client.query("select pg_sleep(0.2)");
      return { status: 201, body: { taskId } };
    };

    // Open all 20 connections first, so the calls start together rather than as each connects.
    const warm = await Promise.all(Array.from({ length: 20 }, () => t.pool.connect()));
    for (const client of warm) client.release();
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, () => runIdempotent(t.pool, scope(key, body), work)),
    );
    const kinds = outcomes.map((o) => o.kind);
    expect(kinds.filter((k) => k === "fresh")).toHaveLength(1);
    expect(kinds.every((k) => k === "fresh" || k === "replay" || k === "in_flight")).toBe(true);
    expect(kinds.filter((k) => k === "in_flight").length).toBeGreaterThan(0);
    expect(counter.runs).toBe(1);

    const tasks = await tasksOf("burst-agent");
    expect(tasks).toHaveLength(1);
    for (const o of outcomes) {
      if (o.kind === "fresh" || o.kind === "replay") expect(o.body).toEqual({ taskId: tasks[0] });
    }
    expect(await keyRows(key)).toHaveLength(1);
  });

  it("keeps the same key from two principals, or for two operations, apart", async () => {
    const key = randomUUID();
    const a = enqueueWork("scope-agent", { who: "a" });
    const b = enqueueWork("scope-agent", { who: "b" });
    const c = enqueueWork("scope-agent", { who: "c" });
    const ra = fresh(await runIdempotent(t.pool, scope(key, { x: 1 }), a.work));
    // Another caller with the same key and even another body is not a mismatch: it is not their key.
    const rb = fresh(
      await runIdempotent(
        t.pool,
        scope(key, { x: 2 }, { principal: "user:ops@example.com" }),
        b.work,
      ),
    );
    const rc = fresh(
      await runIdempotent(
        t.pool,
        scope(key, { x: 1 }, { operation: "POST /api/v1/tasks/x/approve" }),
        c.work,
      ),
    );
    expect(new Set([ra.body, rb.body, rc.body].map((x) => JSON.stringify(x))).size).toBe(3);
    expect(await tasksOf("scope-agent")).toHaveLength(3);
    expect((await keyRows(key)).map((r) => [r.principal, r.operation])).toEqual([
      ["token:billing", "POST /api/v1/tasks"],
      ["token:billing", "POST /api/v1/tasks/x/approve"],
      ["user:ops@example.com", "POST /api/v1/tasks"],
    ]);
    // Each still replays its own response.
    const again = await runIdempotent(
      t.pool,
      scope(key, { x: 2 }, { principal: "user:ops@example.com" }),
      b.work,
    );
    expect(again).toMatchObject({ kind: "replay", body: rb.body });
  });

  it("treats an expired key as new: the work runs again and the old row is replaced", async () => {
    const key = randomUUID();
    const { counter, work } = enqueueWork("expiry-agent", {});
    const first = fresh(await runIdempotent(t.pool, scope(key, { v: 1 }), work));
    await expire(key);
    // Even another body: past retention the key is no longer remembered.
    const second = fresh(await runIdempotent(t.pool, scope(key, { v: 2 }), work));
    expect(second.body).not.toEqual(first.body);
    expect(counter.runs).toBe(2);
    expect(await tasksOf("expiry-agent")).toHaveLength(2);
    const rows = await keyRows(key);
    expect(rows).toHaveLength(1);
    expect(rows[0]?.fingerprint).toBe(requestFingerprint({ v: 2 }));
    expect(rows[0]?.body).toEqual(second.body);
  });

  it("stores nothing when the work throws, and the key can be used again", async () => {
    const key = randomUUID();
    const failing = async (client: SqlClient): Promise<WorkResponse> => {
      await insertTask(client, { agent: "throw-agent", input: {}, actor: "token:billing" });
      throw new Error("provider down");
    };
    await expect(runIdempotent(t.pool, scope(key, {}), failing)).rejects.toThrow("provider down");
    expect(await keyRows(key)).toHaveLength(0);
    expect(await tasksOf("throw-agent")).toHaveLength(0);

    const { counter, work } = enqueueWork("throw-agent", {});
    fresh(await runIdempotent(t.pool, scope(key, {}), work));
    expect(counter.runs).toBe(1);
    expect(await tasksOf("throw-agent")).toHaveLength(1);
  });

  it("does not store a 4xx (its writes are rolled back) unless the work asks to", async () => {
    const key = randomUUID();
    const refusing = async (client: SqlClient): Promise<WorkResponse> => {
      await insertTask(client, { agent: "refuse-agent", input: {}, actor: "token:billing" });
      return { status: 422, body: { type: "unknown-agent" } };
    };
    const refused = await runIdempotent(t.pool, scope(key, {}), refusing);
    expect(refused).toEqual({
      kind: "fresh",
      stored: false,
      status: 422,
      body: { type: "unknown-agent" },
      headers: {},
    });
    expect(await keyRows(key)).toHaveLength(0);
    expect(await tasksOf("refuse-agent")).toHaveLength(0);

    // A 2xx the work marks as not worth keeping is rolled back the same way.
    const unkept = await runIdempotent(t.pool, scope(key, {}), async () => ({
      status: 200,
      body: null,
      store: false,
    }));
    expect(unkept).toMatchObject({ kind: "fresh", stored: false });
    expect(await keyRows(key)).toHaveLength(0);

    // And a 4xx the work asks to store is replayed.
    const kept = await runIdempotent(t.pool, scope(key, {}), async () => ({
      status: 409,
      body: { type: "conflict" },
      store: true,
    }));
    expect(kept).toMatchObject({ kind: "fresh", stored: true, status: 409 });
    expect(await runIdempotent(t.pool, scope(key, {}), refusing)).toMatchObject({
      kind: "replay",
      status: 409,
      body: { type: "conflict" },
    });
    expect(await tasksOf("refuse-agent")).toHaveLength(0);
  });

  it("stores the retention it is given", async () => {
    const key = randomUUID();
    fresh(
      await runIdempotent(t.pool, scope(key, {}, { retentionMs: 1500 }), async () => ({
        status: 200,
        body: [],
      })),
    );
    expect((await keyRows(key))[0]?.retention_ms).toBe(1500);
  });

  it("refuses a malformed scope or work response, naming what was wrong, and stores nothing", async () => {
    let runs = 0;
    const work = async (): Promise<WorkResponse> => {
      runs++;
      return { status: 200, body: {} };
    };
    await expect(runIdempotent(t.pool, scope("", {}), work)).rejects.toThrow(
      "key: must not be empty",
    );
    await expect(runIdempotent(t.pool, scope("ключ", {}), work)).rejects.toThrow(
      "key: must be printable ASCII",
    );
    await expect(runIdempotent(t.pool, scope("k".repeat(256), {}), work)).rejects.toThrow(
      "key: must be at most 255 characters",
    );
    await expect(
      runIdempotent(t.pool, scope("k", {}, { fingerprint: "abc", retentionMs: 0 }), work),
    ).rejects.toThrow(/fingerprint: must be a sha256 hex digest; retentionMs: must be positive/);
    await expect(
      runIdempotent(t.pool, scope("k", {}, { operation: "tasks" }), work),
    ).rejects.toThrow('operation: must be "METHOD /path"');
    expect(runs).toBe(0);

    const key = randomUUID();
    await expect(
      runIdempotent(t.pool, scope(key, {}), async () => ({ status: 99, body: {} })),
    ).rejects.toThrow("idempotent work response: status: must be 200-599");
    await expect(
      runIdempotent(t.pool, scope(key, {}), async () => ({ status: 200, body: { n: Number.NaN } })),
    ).rejects.toThrow("response body.n: NaN is not a JSON number");
    expect(await keyRows(key)).toHaveLength(0);
    expect(() => requestFingerprint({ s: "\u0000" })).toThrow("contains U+0000");
  });
});

describe("purgeExpiredIdempotencyKeys", () => {
  it("deletes only expired keys, at most the limit, and a stored response purges on its own", async () => {
    const ok = async (): Promise<WorkResponse> => ({ status: 200, body: {} });
    const keys = Array.from({ length: 5 }, () => `purge-${randomUUID()}`);
    for (const key of keys) fresh(await runIdempotent(t.pool, scope(key, {}), ok));
    for (const key of keys.slice(0, 3)) await expire(key);
    const live = async () => {
      const { rows } = await t.pool.query<{ key: string }>(
        "select key from idempotency_keys where key like 'purge-%' order by key",
      );
      return rows.map((r) => r.key);
    };

    expect(await purgeExpiredIdempotencyKeys(t.pool, 2)).toBe(2);
    expect(await live()).toHaveLength(3);
    expect(await purgeExpiredIdempotencyKeys(t.pool)).toBe(1);
    expect(await live()).toEqual(keys.slice(3).sort());
    expect(await purgeExpiredIdempotencyKeys(t.pool)).toBe(0);

    // The live ones still replay.
    for (const key of keys.slice(3)) {
      expect((await runIdempotent(t.pool, scope(key, {}), ok)).kind).toBe("replay");
    }

    // Expired rows go after the next stored response, with no one calling the purge.
    for (const key of keys.slice(3)) await expire(key);
    const next = `purge-${randomUUID()}`;
    fresh(await runIdempotent(t.pool, scope(next, {}), ok));
    expect(await live()).toEqual([next]);
    await expect(purgeExpiredIdempotencyKeys(t.pool, 0)).rejects.toThrow("purge limit");
  });
});
