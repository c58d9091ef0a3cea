// The review commands authorize themselves: called directly (no server action, endpoint or CLI
// in front) with a principal that lacks the scope the task-actions table asks for in the task's
// state, each refuses with `forbidden` and writes nothing — no task change, no approval or
// request decided, no effect resolved, no ledger entry. Rows are staged directly.
import { beforeEach, describe, expect, it } from "vitest";
import { setUpTestDatabase } from "../../../db/testing/database";
import { testTokenViewer, testViewer } from "../../auth/testing";
import { type Principal, principalOf } from "../../domain/access";
import { deriveEffectKey, payloadFingerprint } from "../../domain/hash";
import { approveTask } from "./approve-task";
import { cancelTask } from "./cancel-task";
import { rejectTask } from "./reject-task";
import { replayTask } from "./replay-task";
import { resolveOutcome } from "./resolve-outcome";
import { withdrawReviewRequest } from "./two-person";

const t = await setUpTestDatabase("task_commands_authz");

const ops = principalOf(testViewer("ops"));
const reviewer = principalOf(testViewer("reviewer"));
const decideOnly = principalOf(testTokenViewer(["tasks:read", "approvals:decide"], "decider"));

type Staged = { id: string; version: number; key: string; requestId: number };

/** A task in `status` with a parked approval, an effect whose outcome is unknown, and a request. */
async function stage(status: "dead" | "awaiting_approval" | "running"): Promise<Staged> {
  const { rows } = await t.pool.query<{ id: string; version: number }>(
    `insert into tasks (agent, input, status, dead_reason, attempts, created_by, lease_owner, lease_expires_at)
     values ('authz-agent', '{}', $1, $2, 2, 'test',
       case when $1 = 'running' then 'worker-1' end,
       case when $1 = 'running' then now() + interval '1 minute' end)
     returning id, version`,
    [status, status === "dead" ? "outcome_unknown" : null],
  );
  const task = rows[0];
  if (!task) throw new Error("no task staged");
  const intent = { n: 1 };
  const key = deriveEffectKey(task.id, "refund", intent);
  await t.pool.query(
    `insert into steps (task_id, seq, kind, name, status, attempt) values ($1, 1, 'tool', 'refund', 'started', 1)`,
    [task.id],
  );
  await t.pool.query(
    `insert into effects (key, task_id, step_seq, tool, intent, args, fingerprint, status)
     values ($1, $2, 1, 'refund', $3, $3, $4, 'started')`,
    [key, task.id, JSON.stringify(intent), payloadFingerprint(intent)],
  );
  await t.pool.query(
    `insert into approvals (task_id, effect_key, fingerprint, tool, args, money)
     values ($1, $2, $3, 'refund', $4, true)`,
    [task.id, key, payloadFingerprint(intent), JSON.stringify(intent)],
  );
  const request = await t.pool.query<{ id: number }>(
    `insert into review_requests (task_id, action, params, task_version, requested_by)
     values ($1, 'replay', '{"fromStep":1}', $2, 'user:someone@example.com') returning id`,
    [task.id, task.version],
  );
  return { ...task, key, requestId: Number(request.rows[0]?.id) };
}

/** Everything a review command could write, as one comparable value. */
async function footprint(): Promise<unknown> {
  const { rows } = await t.pool.query(
    `select
       (select count(*) from ledger_entries) as entries,
       (select json_agg(json_build_object('id', id, 'status', status, 'version', version, 'attempts', attempts) order by id) from tasks) as tasks,
       (select json_agg(json_build_object('status', status, 'by', decided_by, 'first', first_approved_by) order by id) from approvals) as approvals,
       (select json_agg(json_build_object('status', status, 'by', decided_by) order by id) from review_requests) as requests,
       (select json_agg(json_build_object('status', status, 'result', result) order by key) from effects) as effects,
       (select count(*) from steps) as steps`,
  );
  return rows[0];
}

let dead: Staged;
let parked: Staged;
let running: Staged;
beforeEach(async () => {
  dead = await stage("dead");
  parked = await stage("awaiting_approval");
  running = await stage("running");
});

type Case = {
  name: string;
  principal: Principal;
  run: (p: Principal) => Promise<{ ok: boolean; code?: string; message?: string }>;
  message: string;
};

// The closures read the tasks beforeEach staged for the case that runs.
const cases: Case[] = [
  {
    name: "ops approves a parked effect",
    principal: ops,
    run: (p) => approveTask(t.pool, p, { taskId: parked.id, version: parked.version }),
    message:
      "the ops role may not approve a task that is awaiting_approval (needs approvals:decide)",
  },
  {
    name: "a token with approvals:decide only resumes a dead task (the API's one approve)",
    principal: decideOnly,
    run: (p) => approveTask(t.pool, p, { taskId: dead.id, version: dead.version }),
    message: 'token "decider" may not resume a task that is dead (needs deadLetters:review)',
  },
  {
    name: "ops resumes a dead task from the dashboard's button",
    principal: ops,
    run: (p) =>
      approveTask(t.pool, p, { taskId: dead.id, version: dead.version, action: "resume" }),
    message: "the ops role may not resume a task that is dead (needs deadLetters:review)",
  },
  {
    name: "a token with approvals:decide only rejects a dead task",
    principal: decideOnly,
    run: (p) => rejectTask(t.pool, p, { taskId: dead.id, version: dead.version, reason: "no" }),
    message: 'token "decider" may not reject a task that is dead (needs deadLetters:review)',
  },
  {
    name: "ops rejects a parked task",
    principal: ops,
    run: (p) => rejectTask(t.pool, p, { taskId: parked.id, version: parked.version, reason: "no" }),
    message:
      "the ops role may not reject a task that is awaiting_approval (needs approvals:decide)",
  },
  {
    name: "ops replays a dead task",
    principal: ops,
    run: (p) => replayTask(t.pool, p, { taskId: dead.id, version: dead.version, fromStep: 1 }),
    message: "the ops role may not replay a task that is dead (needs deadLetters:review)",
  },
  {
    name: "a reviewer without outcomes:resolve resolves an unknown outcome",
    principal: principalOf(testTokenViewer(["tasks:read", "deadLetters:review"], "triage")),
    run: (p) =>
      resolveOutcome(t.pool, p, {
        taskId: dead.id,
        version: dead.version,
        key: dead.key,
        happened: true,
        result: { refundId: "re_1" },
      }),
    message:
      'token "triage" may not resolve an outcome of a task that is dead (needs outcomes:resolve)',
  },
  {
    name: "a reviewer cancels a running task",
    principal: reviewer,
    run: (p) => cancelTask(t.pool, p, { taskId: running.id, version: running.version }),
    message: "the reviewer role may not cancel a task that is running (needs tasks:cancel)",
  },
  {
    name: "ops withdraws someone's two-person request",
    principal: ops,
    run: (p) => withdrawReviewRequest(t.pool, p, { taskId: dead.id, requestId: dead.requestId }),
    message:
      "the ops role may not withdraw a review request on a task that is dead (needs deadLetters:review)",
  },
];

describe("a review command called with an under-privileged principal", () => {
  for (const c of cases) {
    it(`refuses and writes nothing: ${c.name}`, async () => {
      const before = await footprint();
      const result = await c.run(c.principal);
      expect(result).toEqual({ ok: false, code: "forbidden", message: c.message });
      expect(await footprint()).toEqual(before);
    });
  }

  it("the same calls with a principal that has the scopes do act (the refusals above are not the staging's)", async () => {
    const before = await footprint();
    const rejected = await rejectTask(t.pool, reviewer, {
      taskId: dead.id,
      version: dead.version,
      reason: "not ours",
    });
    expect(rejected).toMatchObject({ ok: true, value: { status: "rejected" } });
    const withdrawn = await withdrawReviewRequest(t.pool, reviewer, {
      taskId: parked.id,
      requestId: parked.requestId,
    });
    expect(withdrawn).toMatchObject({ ok: true });
    expect(await footprint()).not.toEqual(before);
  });

  it("a status the action does not take is a conflict, whoever asks", async () => {
    const result = await replayTask(t.pool, reviewer, {
      taskId: running.id,
      version: running.version,
      fromStep: 1,
    });
    expect(result).toEqual({
      ok: false,
      code: "conflict",
      message: "cannot replay a task that is running",
    });
  });
});
