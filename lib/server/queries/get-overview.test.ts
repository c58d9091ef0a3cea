import { describe, expect, it } from "vitest";
import { withTransaction } from "../../../db/client";
import { setUpTestDatabase } from "../../../db/testing/database";
import { testTokenViewer, testViewer } from "../../auth/testing";
import { AuthError } from "../../domain/access";
import { DEAD_REASONS, TASK_STATUSES } from "../../domain/task-states";
import { appendLedger } from "../ledger/append-ledger";
import { getOverview } from "./get-overview";

const t = await setUpTestDatabase("overview");
const ops = testViewer("ops");

const hex = (c: string) => c.repeat(64);

describe("getOverview", () => {
  it("lists every status, reason and effect state with zeros on an empty database", async () => {
    const o = await getOverview(t.pool, ops);
    expect(o.tasksByStatus.map((s) => s.status)).toEqual([...TASK_STATUSES]);
    expect(o.tasksByStatus.every((s) => s.count === 0)).toBe(true);
    expect(o.deadByReason.map((r) => r.reason)).toEqual([...DEAD_REASONS]);
    expect(o.effectsByStatus.map((e) => [e.status, e.count, e.approximate])).toEqual([
      ["started", 0, false],
      ["succeeded", 0, false],
      ["failed", 0, false],
    ]);
    expect(o.ledger).toEqual({
      entries: { count: 0, approximate: false },
      streams: { count: 0, approximate: false },
      latestAt: null,
    });
    expect(o.latestEntries).toEqual([]);
    expect(Number.isNaN(Date.parse(o.asOf))).toBe(false);
  });

  it("counts what is in the database", async () => {
    const { rows } = await t.pool.query<{ id: string }>(
      `insert into tasks (agent, input, status, dead_reason, lease_owner, lease_expires_at, created_by)
       values ('a', '{}', 'queued', null, null, null, 't'),
              ('a', '{}', 'queued', null, null, null, 't'),
              ('a', '{}', 'running', null, 'w1', now() + interval '1 minute', 't'),
              ('a', '{}', 'dead', 'budget', null, null, 't'),
              ('a', '{}', 'dead', 'budget', null, null, 't'),
              ('a', '{}', 'dead', 'outcome_unknown', null, null, 't'),
              ('a', '{}', 'succeeded', null, null, null, 't')
       returning id`,
    );
    const taskId = rows[0]?.id;
    await t.pool.query(
      `insert into effects (key, task_id, step_seq, tool, intent, args, fingerprint, status, lease_owner, lease_expires_at)
       values ($2, $1, 1, 'email', '{}', '{}', $2, 'started', 'w1', now() - interval '1 minute'),
              ($3, $1, 2, 'email', '{}', '{}', $3, 'started', 'w1', now() + interval '1 minute'),
              ($4, $1, 3, 'email', '{}', '{}', $4, 'succeeded', null, null)`,
      [taskId, hex("a"), hex("b"), hex("c")],
    );
    await withTransaction(t.pool, async (client) => {
      await appendLedger(client, "system", [
        { kind: "policy.changed", actor: "admin@example.com" },
        { kind: "demo.seeded", actor: "system:seed" },
      ]);
      await appendLedger(client, `task:${taskId}`, { kind: "task.enqueued", actor: "api", taskId });
    });

    const o = await getOverview(t.pool, ops);
    const byStatus = Object.fromEntries(o.tasksByStatus.map((s) => [s.status, s.count]));
    expect(byStatus).toEqual({
      queued: 2,
      running: 1,
      retry_wait: 0,
      awaiting_approval: 0,
      waiting: 0,
      dead: 3,
      succeeded: 1,
      rejected: 0,
      cancelled: 0,
    });
    expect(o.tasksTotal).toEqual({ count: 7, approximate: false });
    expect(Object.fromEntries(o.deadByReason.map((r) => [r.reason, r.count]))).toMatchObject({
      budget: 2,
      outcome_unknown: 1,
      exhausted: 0,
    });
    expect(Object.fromEntries(o.effectsByStatus.map((e) => [e.status, e.count]))).toEqual({
      started: 2,
      succeeded: 1,
      failed: 0,
    });
    expect(o.effectsOutcomeUnknown).toBe(1);
    expect(o.ledger.entries).toEqual({ count: 3, approximate: false });
    expect(o.ledger.streams).toEqual({ count: 2, approximate: false });
    expect(o.ledger.latestAt).toBe(o.latestEntries[0]?.at);
    expect(o.latestEntries.map((e) => e.kind)).toEqual([
      "task.enqueued",
      "demo.seeded",
      "policy.changed",
    ]);
  });

  it("shows only the ten newest entries, newest first", async () => {
    await withTransaction(t.pool, (client) =>
      appendLedger(
        client,
        "system",
        Array.from({ length: 12 }, () => ({ kind: "note.added", actor: "t" })),
      ),
    );
    const o = await getOverview(t.pool, ops);
    expect(o.latestEntries).toHaveLength(10);
    const ids = o.latestEntries.map((e) => e.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(o.ledger.entries.count).toBe(15);
  });
});

describe("getOverview authorization", () => {
  it("refuses without a viewer (401) and without tasks:read (403)", async () => {
    await expect(getOverview(t.pool, null)).rejects.toMatchObject({
      name: "AuthError",
      status: 401,
    });
    const denied = getOverview(t.pool, testTokenViewer(["ledger:read"], "reader"));
    await expect(denied).rejects.toBeInstanceOf(AuthError);
    await expect(denied).rejects.toMatchObject({
      status: 403,
      message: 'token "reader" may not do this (needs tasks:read)',
    });
  });

  it("leaves the latest entries out for a viewer who may not read the ledger, counts kept", async () => {
    const o = await getOverview(t.pool, testTokenViewer(["tasks:read"]));
    expect(o.ledgerHidden).toBe(true);
    expect(o.latestEntries).toEqual([]);
    expect(o.ledger.entries.count).toBe(15);
    const full = await getOverview(t.pool, testViewer("reviewer"));
    expect(full.ledgerHidden).toBe(false);
    expect(full.latestEntries).toHaveLength(10);
  });

  it("counts live fleet workers and the newest sighting; stopped, silent and web alert workers are not live", async () => {
    expect((await getOverview(t.pool, ops)).workers).toEqual({ live: 0, lastSeenAt: null });
    await t.pool.query(
      `insert into workers (id, host, pid, role, agents, last_seen_at, stopped_at) values
         ('o-live', 'h', 1, 'worker', '{}', now(), null),
         ('o-silent', 'h', 2, 'worker', '{}', now() - interval '1 hour', null),
         ('o-stopped', 'h', 3, 'worker', '{}', now() - interval '1 second', now()),
         ('o-web', 'h', 4, 'alerts', '{alert-delivery}', now() + interval '1 minute', null)`,
    );
    const { rows } = await t.pool.query<{ at: Date }>(
      "select last_seen_at as at from workers where id = 'o-live'",
    );
    const o = await getOverview(t.pool, ops, { leaseMs: 30_000 });
    expect(o.workers).toEqual({ live: 1, lastSeenAt: rows[0]?.at.toISOString() });
  });
});
