import { describe, expect, it } from "vitest";
import { setUpTestDatabase } from "../../../db/testing/database";
import { testViewer } from "../../auth/testing";
import { getOverview } from "./get-overview";

const t = await setUpTestDatabase("oldest_waiting");
const hex = (c: string) => c.repeat(64);

async function task(agent: string, status: string, reason: string | null, changedAgo: string) {
  const { rows } = await t.pool.query<{ id: string }>(
    `insert into tasks (agent, input, status, dead_reason, created_by, status_changed_at)
     values ($1, '{}', $2, $3, 't', now() - $4::interval) returning id`,
    [agent, status, reason, changedAgo],
  );
  const id = rows[0]?.id;
  if (!id) throw new Error("no task");
  return id;
}

describe("oldest waiting per kind", () => {
  it("says none waits on an empty database", async () => {
    const o = await getOverview(t.pool, testViewer("ops"));
    expect(o.waiting.map((w) => [w.kind, w.count, w.oldest])).toEqual([
      ["dead_letter", 0, null],
      ["approval", 0, null],
      ["second_reviewer", 0, null],
      ["unknown_outcome", 0, null],
    ]);
  });

  it("finds the oldest of each kind across reasons, and counts them", async () => {
    await task("newer", "dead", "budget", "1 hour");
    const oldestDead = await task("oldest-dead", "dead", "timeout", "3 hours");
    await task("middle", "dead", "exhausted", "2 hours");
    await task("not-dead", "succeeded", null, "9 hours");

    const gated = await task("gated", "awaiting_approval", null, "1 hour");
    const gatedOld = await task("gated-old", "awaiting_approval", null, "1 hour");
    const money = await task("money", "awaiting_approval", null, "1 hour");
    await t.pool.query(
      `insert into approvals (task_id, effect_key, fingerprint, tool, args, requested_at, money, first_approved_by, first_approved_at)
       values ($1, $4, $4, 'refund', '{}', now() - interval '10 minutes', false, null, null),
              ($2, $5, $5, 'refund', '{}', now() - interval '50 minutes', false, null, null),
              ($3, $6, $6, 'refund', '{}', now() - interval '90 minutes', true, 'r1@example.com', now() - interval '5 minutes')`,
      [gated, gatedOld, money, hex("1"), hex("2"), hex("3")],
    );
    const replayed = await task("replay-me", "dead", "non_retryable", "30 minutes");
    await t.pool.query(
      `insert into review_requests (task_id, action, params, task_version, requested_by, requested_at)
       values ($1, 'replay', '{"fromStep":1}', 1, 'r1@example.com', now() - interval '20 minutes')`,
      [replayed],
    );
    const unknown = await task("unknown", "dead", "outcome_unknown", "10 minutes");
    await t.pool.query(
      `insert into effects (key, task_id, step_seq, tool, intent, args, fingerprint, status, lease_owner, lease_expires_at)
       values ($2, $1, 1, 'email', '{}', '{}', $2, 'started', 'w', now() - interval '15 minutes'),
              ($3, $1, 2, 'email', '{}', '{}', $3, 'started', 'w', now() + interval '1 minute')`,
      [unknown, hex("4"), hex("5")],
    );

    const o = await getOverview(t.pool, testViewer("ops"));
    const by = Object.fromEntries(o.waiting.map((w) => [w.kind, w]));
    expect(by.dead_letter).toMatchObject({
      count: 5,
      oldest: { taskId: oldestDead, agent: "oldest-dead", detail: "timeout" },
    });
    expect(by.approval).toMatchObject({ count: 2, oldest: { taskId: gatedOld, detail: "refund" } });
    // The replay request (20 min) waits longer than the money approval's first yes (5 min).
    expect(by.second_reviewer).toMatchObject({
      count: 2,
      oldest: { taskId: replayed, detail: "replay" },
    });
    // Only the effect whose lease ran out; the live one is someone's work in progress.
    expect(by.unknown_outcome).toMatchObject({
      count: 1,
      oldest: { taskId: unknown, agent: "unknown", detail: "email" },
    });
    const { rows } = await t.pool.query<{ since: Date }>(
      "select status_changed_at as since from tasks where id = $1",
      [oldestDead],
    );
    expect(by.dead_letter?.oldest?.since).toBe(rows[0]?.since.toISOString());
  });
});
