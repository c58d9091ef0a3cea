// The two-person rule against real PostgreSQL: money approvals take two different reviewers,
// and a replay or resume that can reach money is a request a second reviewer confirms on the
// same task version. Rows are staged directly (no worker), so each case states what it needs.

import { describe, expect, it } from "vitest";
import { withTransaction } from "../../../db/client";
import { setUpTestDatabase } from "../../../db/testing/database";
import { stager } from "../../../db/testing/stage";
import { testViewer } from "../../auth/testing";
import { operator } from "../../domain/access";
import { deriveEffectKey, payloadFingerprint } from "../../domain/hash";
import type { JsonValue } from "../../domain/json";
import { readApprovalReviews, readReviewState } from "../queries/get-review-state";
import { approveTask } from "./approve-task";
import { cancelTask } from "./cancel-task";
import { insertTask } from "./enqueue-task";
import { rejectTask } from "./reject-task";
import { replayTask } from "./replay-task";
import { resolveOutcome } from "./resolve-outcome";
import { withdrawReviewRequest } from "./two-person";

const t = await setUpTestDatabase("two_person");
const { step, effect, approval } = stager(t.pool);
const A = "user:alice@example.com";
const B = "user:bob@example.com";

type Tool = { name: string; money: boolean };
async function catalog(agent: string, tools: Tool[]): Promise<void> {
  await t.pool.query(
    `insert into agent_catalog (name, input_schema, tools, published_by) values ($1, '{}', $2, 'test')`,
    [agent, JSON.stringify(tools)],
  );
}

let agents = 0;
/** A fresh agent name, with `tools` in the catalog unless null. */
async function agentWith(tools: Tool[] | null): Promise<string> {
  const name = `payer-${++agents}`;
  if (tools) await catalog(name, tools);
  return name;
}

async function task(
  agent: string,
  status: "dead" | "awaiting_approval",
): Promise<{ id: string; version: number }> {
  const { taskId } = await withTransaction(t.pool, (c) =>
    insertTask(c, { agent, input: {}, actor: "test" }),
  );
  const { rows } = await t.pool.query<{ version: number }>(
    `update tasks set status = $2, dead_reason = $3, attempts = 3, version = version + 1
     where id = $1 returning version`,
    [taskId, status, status === "dead" ? "exhausted" : null],
  );
  return { id: taskId, version: rows[0]?.version ?? 0 };
}

const row = async (id: string) =>
  (
    await t.pool.query<{
      status: string;
      version: number;
      attempts: number;
      attempt_base: number;
    }>("select status, version, attempts, attempt_base from tasks where id = $1", [id])
  ).rows[0];

const entries = async (id: string, kind: string) =>
  (
    await t.pool.query<{ actor: string; data: Record<string, unknown> }>(
      "select actor, data from ledger_entries where task_id = $1 and kind = $2 order by seq",
      [id, kind],
    )
  ).rows;

const requests = async (id: string) =>
  (
    await t.pool.query<{
      status: string;
      action: string;
      requested_by: string;
      decided_by: string | null;
      task_version: number;
    }>(
      "select status, action, requested_by, decided_by, task_version from review_requests where task_id = $1 order by id",
      [id],
    )
  ).rows;

type Staged = { id: string; version: number };
/** `actor` approves (or asks to resume) the task at the version it was staged at. */
const approveAs = (actor: string, on: Staged) =>
  approveTask(t.pool, operator(actor), { taskId: on.id, version: on.version });
/** `actor` replays the task from `fromStep`, at the version it was staged at. */
const replayAs = (actor: string, on: Staged, fromStep: number) =>
  replayTask(t.pool, operator(actor), { taskId: on.id, version: on.version, fromStep });
/** `actor` says whether the effect `on.key` happened. */
const resolveAs = (
  actor: string,
  on: Staged & { key: string },
  outcome: { happened: false } | { happened: true; result: JsonValue },
) =>
  resolveOutcome(t.pool, operator(actor), {
    taskId: on.id,
    version: on.version,
    key: on.key,
    ...outcome,
  });

/** A dead task whose step 2 paid and failed: a replay from 1 would pay again. */
async function deadPayer(): Promise<{ id: string; version: number }> {
  const agent = await agentWith([
    { name: "pay", money: true },
    { name: "notify", money: false },
  ]);
  const dead = await task(agent, "dead");
  await step(dead.id, 1, "step", "amount");
  await effect(dead.id, 2, "pay", "failed");
  return dead;
}

describe("money approvals", () => {
  it("the first yes is recorded and the task stays parked; the same person twice is refused; a second person approves once", async () => {
    const agent = await agentWith(null);
    const parked = await task(agent, "awaiting_approval");
    const approvalId = await approval(parked.id, "refund", true);

    const first = await approveAs(A, parked);
    expect(first).toMatchObject({
      ok: true,
      value: {
        status: "awaiting_approval",
        version: parked.version,
        waitingFor: { kind: "approval", requestedBy: A },
      },
    });
    expect(await row(parked.id)).toMatchObject({
      status: "awaiting_approval",
      version: parked.version,
    });
    const firstEntries = await entries(parked.id, "review.first_approved");
    expect(firstEntries).toEqual([
      expect.objectContaining({
        actor: A,
        data: expect.objectContaining({ stage: "first", needsSecondReviewer: true }),
      }),
    ]);

    const again = await approveAs(A, parked);
    expect(again).toMatchObject({
      ok: false,
      code: "conflict",
      message: expect.stringMatching(/^a second, different reviewer must approve/),
    });

    const second = await approveAs(B, parked);
    expect(second).toMatchObject({ ok: true, value: { status: "queued", waitingFor: null } });
    const { rows } = await t.pool.query(
      "select status, first_approved_by, decided_by from approvals where id = $1",
      [approvalId],
    );
    expect(rows[0]).toEqual({ status: "approved", first_approved_by: A, decided_by: B });
    const approved = await entries(parked.id, "review.approved");
    expect(approved).toHaveLength(1);
    expect(approved[0]).toMatchObject({ actor: B, data: { firstApprovedBy: [A] } });
  });

  it("a tool the catalog marks money needs two people even when the approval row is unmarked", async () => {
    const agent = await agentWith([{ name: "refund", money: true }]);
    const parked = await task(agent, "awaiting_approval");
    await approval(parked.id, "refund", false);
    const first = await approveAs(A, parked);
    expect(first).toMatchObject({ ok: true, value: { waitingFor: { kind: "approval" } } });
    expect((await row(parked.id))?.status).toBe("awaiting_approval");
  });

  it("an approval that moves no money takes one reviewer", async () => {
    const agent = await agentWith([{ name: "refund", money: false }]);
    const parked = await task(agent, "awaiting_approval");
    await approval(parked.id, "refund", false);
    const r = await approveAs(A, parked);
    expect(r).toMatchObject({ ok: true, value: { status: "queued", waitingFor: null } });
  });

  it("the database itself refuses one person as both reviewers", async () => {
    const agent = await agentWith(null);
    const parked = await task(agent, "awaiting_approval");
    const id = await approval(parked.id, "refund", true);
    await t.pool.query(
      "update approvals set first_approved_by = $2, first_approved_at = now() where id = $1",
      [id, A],
    );
    await expect(
      t.pool.query(
        "update approvals set status = 'approved', decided_by = $2, decided_at = now() where id = $1",
        [id, A],
      ),
    ).rejects.toThrow(/approvals_second_person_check/);
  });
});

describe("replay that reaches money", () => {
  it("the preview marks the money effect that would act and says why two people are needed", async () => {
    const dead = await deadPayer();
    const state = await readReviewState(t.pool, testViewer("reviewer"), dead.id);
    expect(state?.replay).toMatchObject({
      catalogKnown: true,
      moneyTools: ["pay"],
      twoPerson: true,
      effects: [expect.objectContaining({ tool: "pay", outcome: "act", money: true, acts: true })],
    });
    expect(state?.replay?.reasons).toEqual(["pay (step 2) moves money and will act"]);
    expect(state?.lastStep).toBe(1);
  });

  it("one reviewer requests, the same one is refused, another confirms: it runs once", async () => {
    const dead = await deadPayer();
    const asked = await replayAs(A, dead, 1);
    expect(asked).toMatchObject({
      ok: true,
      value: {
        status: "dead",
        version: dead.version,
        waitingFor: { kind: "request", requestedBy: A },
      },
    });
    // Nothing ran: the journal is whole and the task is where it was.
    expect(await row(dead.id)).toMatchObject({ status: "dead", version: dead.version });
    const steps = await t.pool.query("select count(*)::int as n from steps where task_id = $1", [
      dead.id,
    ]);
    expect(steps.rows[0].n).toBe(1);
    expect(await entries(dead.id, "review.requested")).toEqual([
      expect.objectContaining({
        actor: A,
        data: expect.objectContaining({ action: "replay", fromStep: 1, taskVersion: dead.version }),
      }),
    ]);

    const same = await replayAs(A, dead, 1);
    expect(same).toMatchObject({
      ok: false,
      code: "conflict",
      message: expect.stringMatching(/^a second, different reviewer must confirm/),
    });
    const other = await replayAs(B, dead, 2);
    expect(other).toMatchObject({
      ok: false,
      code: "conflict",
      message: expect.stringContaining(`${A} asked for a replay from step 1`),
    });

    const confirmed = await replayAs(B, dead, 1);
    expect(confirmed).toMatchObject({ ok: true, value: { status: "queued", waitingFor: null } });
    expect(await requests(dead.id)).toEqual([
      {
        status: "confirmed",
        action: "replay",
        requested_by: A,
        decided_by: B,
        task_version: dead.version,
      },
    ]);
    const replays = await entries(dead.id, "replay.requested");
    expect(replays).toHaveLength(1);
    expect(replays[0]).toMatchObject({
      actor: B,
      data: { twoPerson: { requestedBy: A, confirmedBy: B } },
    });
    expect(await row(dead.id)).toMatchObject({
      status: "queued",
      attempts: 3,
      attempt_base: 3,
    });
  });

  it("two reviewers clicking at once: one request, one confirmation, one replay", async () => {
    const dead = await deadPayer();
    const results = await Promise.all([A, B].map((actor) => replayAs(actor, dead, 1)));
    expect(results.every((r) => r.ok)).toBe(true);
    expect(results.filter((r) => r.ok && r.value.waitingFor !== null)).toHaveLength(1);
    expect(await entries(dead.id, "replay.requested")).toHaveLength(1);
    expect((await row(dead.id))?.status).toBe("queued");
  });

  it("the request is bound to the task version: a change voids it", async () => {
    const dead = await deadPayer();
    await replayAs(A, dead, 1);
    // Someone else changes the task (the request was for what the task was then).
    const { rows } = await t.pool.query<{ version: number }>(
      "update tasks set version = version + 1 where id = $1 returning version",
      [dead.id],
    );
    const now = rows[0]?.version ?? 0;
    const stale = await replayAs(B, dead, 1);
    expect(stale).toMatchObject({
      ok: false,
      code: "conflict",
      message: expect.stringMatching(/changed since you loaded it/),
    });
    expect((await readReviewState(t.pool, testViewer("reviewer"), dead.id))?.pending).toBeNull();

    // On the new version B's click is a new first request, not a confirmation of A's.
    const fresh = await replayAs(B, { id: dead.id, version: now }, 1);
    expect(fresh).toMatchObject({
      ok: true,
      value: { status: "dead", waitingFor: { requestedBy: B } },
    });
    expect(await requests(dead.id)).toEqual([
      expect.objectContaining({ status: "withdrawn", requested_by: A, task_version: dead.version }),
      expect.objectContaining({ status: "pending", requested_by: B, task_version: now }),
    ]);
    expect(await entries(dead.id, "review.withdrawn")).toEqual([
      expect.objectContaining({
        data: expect.objectContaining({
          why: expect.stringMatching(/changed after it was requested/),
        }),
      }),
    ]);
    expect(await entries(dead.id, "replay.requested")).toHaveLength(0);
  });

  it("reject and cancel withdraw a pending request", async () => {
    const dead = await deadPayer();
    await replayAs(A, dead, 1);
    const rejected = await rejectTask(t.pool, operator(B), {
      taskId: dead.id,
      version: dead.version,
      reason: "no",
    });
    expect(rejected.ok).toBe(true);
    expect((await requests(dead.id)).map((r) => r.status)).toEqual(["withdrawn"]);

    const other = await deadPayer();
    await replayAs(A, other, 1);
    expect(
      (await cancelTask(t.pool, operator(B), { taskId: other.id, version: other.version })).ok,
    ).toBe(true);
    expect((await requests(other.id)).map((r) => r.status)).toEqual(["withdrawn"]);
  });

  it("a reviewer withdraws a request; then anyone may ask again", async () => {
    const dead = await deadPayer();
    const asked = await replayAs(A, dead, 1);
    const requestId = asked.ok ? (asked.value.waitingFor?.requestId ?? 0) : 0;
    expect(
      await withdrawReviewRequest(t.pool, operator(B), { taskId: dead.id, requestId }),
    ).toMatchObject({ ok: true });
    expect(
      await withdrawReviewRequest(t.pool, operator(B), { taskId: dead.id, requestId }),
    ).toMatchObject({
      ok: false,
      code: "conflict",
    });
    const again = await replayAs(B, dead, 2);
    expect(again).toMatchObject({ ok: true, value: { waitingFor: { requestedBy: B } } });
  });

  it("the database refuses a request confirmed by its own requester", async () => {
    const dead = await deadPayer();
    await replayAs(A, dead, 1);
    await expect(
      t.pool.query(
        "update review_requests set status = 'confirmed', decided_by = requested_by, decided_at = now() where task_id = $1",
        [dead.id],
      ),
    ).rejects.toThrow(/review_requests_second_person_check/);
  });
});

describe("when one reviewer is enough", () => {
  it("an agent the catalog does not know: no tool counts as money, and the preview says so", async () => {
    const agent = await agentWith(null);
    const dead = await task(agent, "dead");
    await step(dead.id, 1, "step", "amount");
    await effect(dead.id, 2, "pay", "failed");
    const state = await readReviewState(t.pool, testViewer("reviewer"), dead.id);
    expect(state?.replay).toMatchObject({ catalogKnown: false, twoPerson: false, moneyTools: [] });
    const r = await replayAs(A, dead, 1);
    expect(r).toMatchObject({ ok: true, value: { status: "queued", waitingFor: null } });
  });

  it("a money effect that would only be deduplicated does not need a second person", async () => {
    const agent = await agentWith([{ name: "pay", money: true }]);
    const dead = await task(agent, "dead");
    const key = await effect(dead.id, 1, "pay", "succeeded");
    await step(dead.id, 1, "tool", "pay", key);
    const state = await readReviewState(t.pool, testViewer("reviewer"), dead.id);
    expect(state?.replay).toMatchObject({
      twoPerson: false,
      effects: [expect.objectContaining({ outcome: "dedupe", money: true, acts: false })],
    });
    const r = await replayAs(A, dead, 1);
    expect(r).toMatchObject({ ok: true, value: { status: "queued" } });
  });

  it("a money tool the journal never reached counts: the re-run may reach it for the first time", async () => {
    const agent = await agentWith([{ name: "pay", money: true }]);
    const dead = await task(agent, "dead");
    await step(dead.id, 1, "step", "amount");
    const state = await readReviewState(t.pool, testViewer("reviewer"), dead.id);
    expect(state?.replay?.reasons).toEqual([
      "pay moves money and the run may reach it for the first time",
    ]);
    expect(state?.resume?.twoPerson).toBe(true);
  });
});

describe("resume (approve a dead task) that reaches money", () => {
  it("is requested by one reviewer and carried out by another, with a fresh attempt budget", async () => {
    const dead = await deadPayer();
    const state = await readReviewState(t.pool, testViewer("reviewer"), dead.id);
    expect(state?.resume).toMatchObject({ action: "approve", fromStep: 2, twoPerson: true });

    const asked = await approveAs(A, dead);
    expect(asked).toMatchObject({
      ok: true,
      value: { status: "dead", waitingFor: { kind: "request" } },
    });
    expect((await readReviewState(t.pool, testViewer("reviewer"), dead.id))?.pending).toMatchObject(
      {
        action: "approve",
        requestedBy: A,
        taskVersion: dead.version,
      },
    );
    // A replay is another action: it cannot ride on the resume request.
    const replay = await replayAs(B, dead, 2);
    expect(replay).toMatchObject({
      ok: false,
      message: expect.stringContaining("asked for resuming the task"),
    });
    expect(await approveAs(A, dead)).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^a second, different reviewer must confirm/),
    });
    const done = await approveAs(B, dead);
    expect(done).toMatchObject({ ok: true, value: { status: "queued" } });
    expect(await row(dead.id)).toMatchObject({
      status: "queued",
      attempts: 3,
      attempt_base: 3,
    });
    expect(await entries(dead.id, "review.approved")).toEqual([
      expect.objectContaining({
        actor: B,
        data: expect.objectContaining({
          twoPerson: expect.objectContaining({ requestedBy: A, confirmedBy: B }),
        }),
      }),
    ]);
  });

  it("an action pinned to other statuses refuses the task", async () => {
    const dead = await deadPayer();
    const r = await approveTask(t.pool, operator(A), {
      taskId: dead.id,
      version: dead.version,
      action: "approve",
    });
    expect(r).toMatchObject({
      ok: false,
      code: "conflict",
      message: "cannot approve a task that is dead",
    });
  });
});

describe("resolving an unknown outcome of a money effect", () => {
  /** A dead task whose `tool` effect (step 1) was cut between acting and recording. */
  async function unknownOutcome(money: boolean) {
    const agent = await agentWith([{ name: "refund", money }]);
    const dead = await task(agent, "dead");
    const key = deriveEffectKey(dead.id, "refund", { n: 1 });
    await t.pool.query(
      `insert into effects (key, task_id, step_seq, tool, intent, args, fingerprint, status)
       values ($1, $2, 1, 'refund', '{"n":1}', '{"n":1}', $3, 'started')`,
      [key, dead.id, payloadFingerprint({ n: 1 })],
    );
    // The tool step never completed: the worker died between acting and recording.
    await t.pool.query(
      `insert into steps (task_id, seq, kind, name, status, effect_key, attempt)
       values ($1, 1, 'tool', 'refund', 'started', $2, 1)`,
      [dead.id, key],
    );
    return { ...dead, key };
  }

  it("'it did not' is recorded by one reviewer, but sending the money again takes two", async () => {
    const dead = await unknownOutcome(true);
    const resolved = await resolveAs(A, dead, { happened: false });
    expect(resolved).toMatchObject({ ok: true, value: { status: "dead" } });
    expect(await row(dead.id)).toMatchObject({ status: "dead", version: dead.version + 1 });
    expect(await entries(dead.id, "outcome.resolved")).toEqual([
      expect.objectContaining({ actor: A, data: expect.objectContaining({ resumed: false }) }),
    ]);
    const state = await readReviewState(t.pool, testViewer("reviewer"), dead.id);
    expect(state?.resume?.twoPerson).toBe(true);
    const first = await approveAs(A, { id: dead.id, version: dead.version + 1 });
    expect(first).toMatchObject({
      ok: true,
      value: { status: "dead", waitingFor: { kind: "request" } },
    });
    const second = await approveAs(B, { id: dead.id, version: dead.version + 1 });
    expect(second).toMatchObject({ ok: true, value: { status: "queued" } });
  });

  it("'it did not' on an effect that moves no money resumes the task at once", async () => {
    const dead = await unknownOutcome(false);
    const resolved = await resolveAs(A, dead, { happened: false });
    expect(resolved).toMatchObject({ ok: true, value: { status: "queued" } });
  });

  it("'it happened' on a money effect resumes at once: nothing will be sent again", async () => {
    const dead = await unknownOutcome(true);
    const resolved = await resolveAs(A, dead, { happened: true, result: { refundId: "re_1" } });
    expect(resolved).toMatchObject({ ok: true, value: { status: "queued" } });
  });
});

describe("reading the review state", () => {
  it("needs tasks:read", async () => {
    const dead = await deadPayer();
    await expect(readReviewState(t.pool, null, dead.id)).rejects.toThrow(/sign in/);
  });

  it("the approvals list gets each task's version and two-person state", async () => {
    const flagged = await task(await agentWith(null), "awaiting_approval");
    await approval(flagged.id, "refund", true);
    await approveAs(A, flagged);
    const byCatalog = await task(
      await agentWith([{ name: "refund", money: true }]),
      "awaiting_approval",
    );
    await approval(byCatalog.id, "refund", false);
    const plain = await task(
      await agentWith([{ name: "refund", money: false }]),
      "awaiting_approval",
    );
    await approval(plain.id, "refund", false);

    const reviews = await readApprovalReviews(t.pool, testViewer("ops"), [
      flagged.id,
      byCatalog.id,
      plain.id,
    ]);
    expect(reviews[flagged.id]).toMatchObject({
      version: flagged.version,
      status: "awaiting_approval",
      money: true,
      firstApprovedBy: A,
      firstApprovedAt: expect.any(String),
    });
    expect(reviews[byCatalog.id]).toMatchObject({ money: true, firstApprovedBy: null });
    expect(reviews[plain.id]).toMatchObject({ money: false, version: plain.version });
  });
});
