// Valid inputs for the matrix rows: fresh users, tokens and tasks in the states the review
// actions act on, made through the real commands (and a real worker for parked approvals) where
// the state is reachable that way, and by a plain insert where it is not (a dead task, a lost
// effect).
import { randomBytes } from "node:crypto";
import type pg from "pg";
import { operator, type Role, type Scope } from "../../lib/domain/access";
import { createApiToken } from "../../lib/server/commands/api-tokens";
import { replayTask } from "../../lib/server/commands/replay-task";
import { createUser } from "../../lib/server/commands/users";
import {
  E2E_APPROVAL_THRESHOLD_CENTS,
  enqueue,
  publishLoneTool,
  randomWord,
  refundAgent,
  runTasks,
} from "../fixtures";
import { type MatrixContext, PRINCIPALS, type TaskAt } from "./matrix";

export const ACTOR = "system:e2e-authz";
export const PASSWORD = "authz-matrix-password";

export function unique(prefix: string): string {
  return `${prefix}-${randomBytes(5).toString("hex")}`;
}

/** A dead task of `agent` with no journal, and its version. */
async function insertDead(db: pg.Pool, agent: string): Promise<TaskAt> {
  const { rows } = await db.query<{ id: string; version: number }>(
    `insert into tasks (agent, input, status, dead_reason, attempts, last_error, created_by)
     values ($1, '{}'::jsonb, 'dead', 'exhausted', 3, '{"message": "authz matrix fixture"}'::jsonb, $2)
     returning id, version`,
    [agent, ACTOR],
  );
  const row = rows[0];
  if (!row) throw new Error("insert returned no task");
  return { taskId: row.id, version: row.version };
}

async function versionOf(db: pg.Pool, taskId: string): Promise<number> {
  const { rows } = await db.query<{ version: number }>("select version from tasks where id = $1", [
    taskId,
  ]);
  if (!rows[0]) throw new Error(`no task ${taskId}`);
  return rows[0].version;
}

/** An agent the catalog says moves money, so a replay of its task needs two reviewers. */
const MONEY_AGENT = "authz-money-agent";

/** Parked refunds are made by a real worker, a batch at a time (one per principal and row). */
const parked: string[] = [];
const PARK_BATCH = PRINCIPALS.length + 1;

async function parkedRefund(db: pg.Pool): Promise<string> {
  if (parked.length === 0) {
    const agent = refundAgent(`authz-refund-${randomWord(8)}`);
    const ids: string[] = [];
    for (let i = 0; i < PARK_BATCH; i++) {
      ids.push(
        await enqueue(db, agent.name, {
          orderId: unique("ord"),
          amountCents: E2E_APPROVAL_THRESHOLD_CENTS + 1 + i,
        }),
      );
    }
    await runTasks([agent], ids, ["awaiting_approval"]);
    parked.push(...ids);
  }
  const id = parked.shift();
  if (!id) throw new Error("no parked refund");
  return id;
}

export function matrixContext(db: pg.Pool): MatrixContext {
  return {
    db,
    unique,
    deadTask: () => insertDead(db, "authz-agent"),
    awaitingApprovalTask: async () => {
      const taskId = await parkedRefund(db);
      return { taskId, version: await versionOf(db, taskId) };
    },
    unknownOutcome: async () => {
      const task = await insertDead(db, "authz-agent");
      const key = randomBytes(32).toString("hex");
      await db.query(
        `insert into effects (key, task_id, step_seq, tool, intent, args, fingerprint, status)
         values ($1, $2, 1, 'send_email', '{}'::jsonb, '{}'::jsonb, $3, 'started')`,
        [key, task.taskId, randomBytes(32).toString("hex")],
      );
      return { ...task, key };
    },
    apiAgent: async () => {
      await db.query(
        `insert into agent_catalog (name, input_schema, tools, published_by)
         values ('authz-api-agent', '{}', '[]', 'e2e') on conflict (name) do nothing`,
      );
      return "authz-api-agent";
    },
    freshTool: async () => {
      const tool = unique("authz_tool").replaceAll("-", "_");
      await publishLoneTool(db, `authz-agent-of-${tool}`, tool, { by: ACTOR });
      return tool;
    },
    pendingReviewRequest: async () => {
      await db.query(
        `insert into agent_catalog (name, input_schema, tools, published_by)
         values ($1, '{}'::jsonb, '[{"name": "issue_refund", "money": true}]'::jsonb, $2)
         on conflict (name) do nothing`,
        [MONEY_AGENT, ACTOR],
      );
      const task = await insertDead(db, MONEY_AGENT);
      const requested = await replayTask(db, operator(ACTOR), { ...task, fromStep: 1 });
      const waiting = requested.ok ? requested.value.waitingFor : null;
      if (!waiting?.requestId) {
        throw new Error(
          `replaying a money task made no review request: ${JSON.stringify(requested)}`,
        );
      }
      return { ...task, requestId: waiting.requestId };
    },
    freshUser: async (role: Role) => {
      const email = `${unique("authz-user")}@example.com`;
      const made = await createUser(db, operator(ACTOR), { email, role, password: PASSWORD });
      if (!made.ok) throw new Error(`could not create ${email}: ${made.message}`);
      return { id: made.value.id, email };
    },
    freshToken: async (scopes: Scope[]) => {
      const made = await createApiToken(db, operator(ACTOR), {
        name: unique("authz-token"),
        scopes,
      });
      if (!made.ok) throw new Error(`could not create a token: ${made.message}`);
      return { id: made.value.id };
    },
  };
}
