// The reaper decides a crashed attempt only for agents whose code it runs (that code may set
// the retry policy): a worker running other agents, like the web server's alert-delivery
// worker, leaves the lease to a worker that knows the agent.
import { describe, expect, it } from "vitest";
import { withTransaction } from "../../db/client";
import { setUpTestDatabase } from "../../db/testing/database";
import { attemptStartOf } from "../../lib/domain/attempt-start";
import { effectStartOf } from "../../lib/domain/effect-start";
import { deriveEffectKey } from "../../lib/domain/hash";
import type { JsonValue } from "../../lib/domain/json";
import { buildTaskTimeline } from "../../lib/domain/task-timeline";
import { insertTask } from "../../lib/server/commands/enqueue-task";
import { appendThrough } from "../../lib/server/ledger/append-known-head";
import { verifyLedger } from "../../lib/server/ledger/verify-ledger";
import { attemptsOf } from "../../lib/server/queries/task-attempts";
import { claimBatch } from "./claim-batch";
import { claimEffect } from "./effect-batch";
import { reapExpiredLeases } from "./reaper";

const t = await setUpTestDatabase("reaper");

async function crashed(agent: string): Promise<string> {
  const { taskId } = await withTransaction(t.pool, (c) =>
    insertTask(c, { agent, input: {}, actor: "test" }),
  );
  const { rowCount } = await t.pool.query(
    `update tasks set status = 'running', attempts = 1, lease_owner = 'dead-worker',
       lease_expires_at = now() - interval '1 second'
     where id = $1`,
    [taskId],
  );
  expect(rowCount).toBe(1);
  return taskId;
}

const status = async (id: string) =>
  (await t.pool.query<{ status: string }>("select status from tasks where id = $1", [id])).rows[0]
    ?.status;

describe("reapExpiredLeases", () => {
  it("reaps the agents it runs and leaves the others' leases alone", async () => {
    const mine = await crashed("known-agent");
    const theirs = await crashed("other-agent");
    const reaped = await reapExpiredLeases(t.pool, "reaper-1", new Map([["known-agent", {}]]));
    expect(reaped).toBe(1);
    expect(await status(mine)).toBe("retry_wait");
    expect(await status(theirs)).toBe("running");
    expect(await reapExpiredLeases(t.pool, "reaper-2", new Map([["other-agent", {}]]))).toBe(1);
    expect(await status(theirs)).toBe("retry_wait");
  });
});

describe("an attempt that crashed before its first entry", () => {
  // The claim writes no entry (the start rides on the attempt's first one): the entry the
  // reaper writes carries the start, so the attempt still shows in the ledger.
  const claimOne = async (agent: string) => {
    const { taskId } = await withTransaction(t.pool, (c) =>
      insertTask(c, { agent, input: {}, actor: "test" }),
    );
    const [claimed] = await claimBatch(t.pool, "crasher", [agent], 1, 60_000);
    expect(claimed?.task.id).toBe(taskId);
    await t.pool.query(
      "update tasks set lease_expires_at = now() - interval '1 second' where id = $1",
      [taskId],
    );
    return claimed as NonNullable<typeof claimed>;
  };
  const entriesOf = async (id: string) =>
    (
      await t.pool.query<{ kind: string; actor: string; at: Date; data: unknown }>(
        "select kind, actor, at, data from ledger_entries where task_id = $1 order by seq",
        [id],
      )
    ).rows;

  it("is closed by a worker.lost that carries its start", async () => {
    const claimed = await claimOne("crashy-agent");
    const id = claimed.task.id;
    expect((await entriesOf(id)).map((e) => e.kind)).toEqual(["task.enqueued"]);
    expect(await reapExpiredLeases(t.pool, "reaper-3", new Map([["crashy-agent", {}]]))).toBe(1);
    const entries = await entriesOf(id);
    expect(entries.map((e) => e.kind)).toEqual(["task.enqueued", "worker.lost", "retry.scheduled"]);
    const lost = entries[1] as (typeof entries)[number];
    expect(lost.actor).toBe("worker:reaper-3");
    expect(attemptStartOf(lost)).toEqual({
      attempt: 1,
      agent: "crashy-agent",
      version: null,
      at: claimed.head.start?.at,
      actor: "worker:crasher",
    });
    // The attempts list and the timeline show it, lost.
    expect(attemptsOf([...entries].reverse())).toEqual([
      expect.objectContaining({ attempt: 1, worker: "worker:crasher" }),
    ]);
    const timeline = buildTaskTimeline(
      entries.map((e, i) => ({
        seq: i + 1,
        at: e.at.toISOString(),
        kind: e.kind,
        key: null,
        data: e.data as JsonValue,
      })),
      new Date().toISOString(),
    );
    expect(timeline.segments.find((s) => s.kind === "running")).toMatchObject({
      attempt: 1,
      start: claimed.head.start?.at,
    });
    expect((await verifyLedger(t.pool)).problems).toEqual([]);
  });

  it("is not started twice when its first entry was written", async () => {
    const claimed = await claimOne("crashy-agent-2");
    const id = claimed.task.id;
    await withTransaction(t.pool, (c) =>
      appendThrough(c, claimed.head, {
        kind: "step.completed",
        actor: "worker:crasher",
        taskId: id,
        data: { attempt: 1, step: 1 },
      }),
    );
    expect(claimed.head.start).toBeUndefined();
    expect(await reapExpiredLeases(t.pool, "reaper-4", new Map([["crashy-agent-2", {}]]))).toBe(1);
    const entries = await entriesOf(id);
    expect(entries.map((e) => [e.kind, attemptStartOf(e) !== null])).toEqual([
      ["task.enqueued", false],
      ["step.completed", true],
      ["worker.lost", false],
      ["retry.scheduled", false],
    ]);
  });
});

describe("a last attempt that died holding an effect's claim", () => {
  it("is dead-lettered with the claim recorded, once, by the reaper", async () => {
    const agent = "crashy-claimer";
    const { taskId } = await withTransaction(t.pool, (c) =>
      insertTask(c, { agent, input: {}, actor: "test", policy: { maxAttempts: 1 } }),
    );
    const [claimed] = await claimBatch(t.pool, "claimer", [agent], 1, 60_000);
    expect(claimed?.task.id).toBe(taskId);
    const intent = { to: "a@example.com" };
    const key = deriveEffectKey(taskId, "send_email", intent);
    const fingerprint = "b".repeat(64);
    const claim = {
      key,
      taskId,
      stepSeq: 1,
      tool: "send_email",
      intent,
      args: intent,
      fingerprint,
      leaseMs: 60_000,
    };
    expect(await claimEffect(t.pool, claim, "claimer")).toMatchObject({ inserted: true });
    // Another claim of the same task whose lease still runs is its claimer's, not the reaper's.
    const live = { ...claim, key: deriveEffectKey(taskId, "send_email", { to: "b" }), stepSeq: 2 };
    expect(await claimEffect(t.pool, live, "claimer")).toMatchObject({ inserted: true });
    // The worker dies: both leases run out, the effect's first.
    await t.pool.query(
      "update tasks set lease_expires_at = now() - interval '1 second' where id = $1",
      [taskId],
    );
    await t.pool.query(
      "update effects set lease_expires_at = now() - interval '1 second' where key = $1",
      [key],
    );
    expect(await reapExpiredLeases(t.pool, "reaper-5", new Map([[agent, {}]]))).toBe(1);
    expect(await status(taskId)).toBe("dead");
    const entries = (
      await t.pool.query<{
        kind: string;
        actor: string;
        key: string | null;
        at: Date;
        data: unknown;
      }>("select kind, actor, key, at, data from ledger_entries where task_id = $1 order by seq", [
        taskId,
      ])
    ).rows;
    expect(entries.map((e) => e.kind)).toEqual([
      "task.enqueued",
      "worker.lost",
      "effect.outcome_unknown",
      "task.dead_lettered",
    ]);
    const unknown = entries[2] as (typeof entries)[number];
    expect(unknown).toMatchObject({ actor: "worker:reaper-5", key });
    expect(unknown.data).toMatchObject({ tool: "send_email", step: 1, action: "dead-letter" });
    expect(effectStartOf(unknown)).toMatchObject({
      lapsed: true,
      actor: "worker:claimer",
      args: intent,
      fingerprint,
    });
    // Marked recorded (no owner): a reviewer's retry meeting the effect does not record it again.
    const effects = (
      await t.pool.query<{ key: string; status: string; lease_owner: string | null }>(
        "select key, status, lease_owner from effects where task_id = $1 order by step_seq",
        [taskId],
      )
    ).rows;
    expect(effects).toEqual([
      { key, status: "started", lease_owner: null },
      { key: live.key, status: "started", lease_owner: "claimer" },
    ]);
    expect((await verifyLedger(t.pool)).problems).toEqual([]);
  });
});
