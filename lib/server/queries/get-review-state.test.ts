// The task page's review panel offers what the task-actions table allows for the task's facts,
// not its status alone: no resolve or reconcile without an unknown outcome, no withdraw without
// a pending request; with them, the same viewer is offered each. Against real PostgreSQL.
import { describe, expect, it } from "vitest";
import { withTransaction } from "../../../db/client";
import { setUpTestDatabase } from "../../../db/testing/database";
import { testViewer } from "../../auth/testing";
import { deriveEffectKey, payloadFingerprint } from "../../domain/hash";
import { insertTask } from "../commands/enqueue-task";
import { readReviewState } from "./get-review-state";

const t = await setUpTestDatabase("review_state");

async function deadTask(): Promise<{ id: string; version: number }> {
  const { taskId } = await withTransaction(t.pool, (c) =>
    insertTask(c, { agent: "payer", input: {}, actor: "test" }),
  );
  const { rows } = await t.pool.query<{ version: number }>(
    `update tasks set status = 'dead', dead_reason = 'exhausted', attempts = 3, version = version + 1
     where id = $1 returning version`,
    [taskId],
  );
  return { id: taskId, version: rows[0]?.version ?? 0 };
}

/** A started effect of step 1 whose lease is still live, or ran out a minute ago. */
async function startedEffect(taskId: string, lease: "expired" | "live"): Promise<void> {
  const intent = { seq: 1 };
  await t.pool.query(
    `insert into effects (key, task_id, step_seq, tool, intent, args, fingerprint, status, lease_expires_at)
     values ($1, $2, 1, 'pay', $3, $3, $4, 'started', now() + $5::interval)`,
    [
      deriveEffectKey(taskId, "pay", intent),
      taskId,
      JSON.stringify(intent),
      payloadFingerprint(intent),
      lease === "live" ? "1 hour" : "-1 minute",
    ],
  );
}

const offered = async (id: string) => {
  const state = await readReviewState(t.pool, testViewer("reviewer"), id);
  if (!state) throw new Error(`no review state for ${id}`);
  return {
    resolve: state.allowed.resolve.allowed,
    reconcile: state.allowed.reconcile.allowed,
    withdraw: state.allowed.withdraw.allowed,
    resume: state.allowed.resume.allowed,
  };
};

describe("the review panel's actions follow the task's facts", () => {
  it("a dead task without an unknown outcome or a pending request is offered none of resolve, reconcile, withdraw", async () => {
    const dead = await deadTask();
    expect(await offered(dead.id)).toEqual({
      resolve: false,
      reconcile: false,
      withdraw: false,
      resume: true,
    });
    const state = await readReviewState(t.pool, testViewer("reviewer"), dead.id);
    expect(state?.allowed.resolve).toMatchObject({
      allowed: false,
      refusal: { message: expect.stringContaining("no effect whose outcome is unknown") },
    });
  });

  it("an effect whose lease ran out without a result offers resolve and reconcile; one with a live lease does not", async () => {
    const live = await deadTask();
    await startedEffect(live.id, "live");
    expect(await offered(live.id)).toMatchObject({ resolve: false, reconcile: false });

    const unknown = await deadTask();
    await startedEffect(unknown.id, "expired");
    expect(await offered(unknown.id)).toMatchObject({ resolve: true, reconcile: true });
  });

  it("a pending review request offers withdraw", async () => {
    const dead = await deadTask();
    await t.pool.query(
      `insert into review_requests (task_id, action, params, task_version, requested_by)
       values ($1, 'replay', '{"fromStep":1}', $2, 'user:someone@example.com')`,
      [dead.id, dead.version],
    );
    expect(await offered(dead.id)).toMatchObject({ withdraw: true, resolve: false });
  });

  it("an ops viewer is refused by scope whatever the facts", async () => {
    const unknown = await deadTask();
    await startedEffect(unknown.id, "expired");
    const state = await readReviewState(t.pool, testViewer("ops"), unknown.id);
    expect(state?.allowed.resolve).toMatchObject({
      allowed: false,
      refusal: { code: "forbidden" },
    });
  });
});
