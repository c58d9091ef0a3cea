// The authorization matrix: one row per way to call every server action and route handler, with
// a valid input, so only authorization decides the outcome. The outcome per principal follows
// from the row's scope and ROLE_SCOPES; public rows state theirs. matrix.spec.ts runs every
// row × principal against the built app and fails for any action or handler without a row.
import type pg from "pg";
import { ROLE_SCOPES, type Role, SCOPES, type Scope } from "../../lib/domain/access";
import { DEMO_PASSWORD } from "../../lib/server/commands/users";

export const PRINCIPALS = [
  "anonymous",
  "ops",
  "reviewer",
  "admin",
  /** An admin who signed in and was then disabled: the cookie outlives the account. */
  "disabled",
  "token with every scope",
  "token with metrics:read",
] as const;
export type Principal = (typeof PRINCIPALS)[number];

export const TOKEN_SCOPES: Partial<Record<Principal, readonly Scope[]>> = {
  "token with every scope": SCOPES,
  "token with metrics:read": ["metrics:read"],
};

/** "ok" is a 2xx (handlers) or `{ ok: true }` (actions); redirects name their target path. */
export type Outcome = "ok" | 401 | 403 | 404 | `redirect:${string}`;

/** What rows may use to build a valid input: the e2e database and fresh, unique fixtures. */
export type MatrixContext = {
  db: pg.Pool;
  /** A name no other row or run has used: `${prefix}-<random>`. */
  unique: (prefix: string) => string;
  /** A new, active user of `role` (password at least 12 characters). */
  freshUser: (role: Role) => Promise<{ id: string; email: string }>;
  /** A new, unrevoked API token. */
  freshToken: (scopes: Scope[]) => Promise<{ id: string }>;
  /** A task dead-lettered by its retry limit, with no journal. */
  deadTask: () => Promise<TaskAt>;
  /** A refund the worker parked for a person's approval (not a `money` tool: one yes runs it). */
  awaitingApprovalTask: () => Promise<TaskAt>;
  /** A dead task whose effect started and never finished: its outcome is unknown. */
  unknownOutcome: () => Promise<TaskAt & { key: string }>;
  /** An agent in the catalog that takes any input (for enqueueing over the API). */
  apiAgent: () => Promise<string>;
  /** A dead task with a pending two-person replay request (its agent has a `money` tool). */
  pendingReviewRequest: () => Promise<TaskAt & { requestId: number }>;
  /** A tool of its own in the catalog (no admin limit yet), whose agent never runs. */
  freshTool: () => Promise<string>;
};

type RouteRequest = { path: string; body: unknown };

/** A task and the version a reviewer would have loaded. */
export type TaskAt = { taskId: string; version: number };

type ActionCall = {
  kind: "action";
  /** The arguments, as a client would pass them (JSON-encoded over the wire). */
  args: (ctx: MatrixContext) => Promise<unknown[]> | unknown[];
};

type RouteCall = {
  kind: "route";
  /** A concrete path for the row's route pattern, or a path and the body that goes with it. */
  path: string | ((ctx: MatrixContext) => Promise<string | RouteRequest> | string | RouteRequest);
  /** A JSON body, for methods that take one. */
  body?: (ctx: MatrixContext) => unknown;
};

type Access =
  /**
   * Sessions (and, for route handlers, API tokens) with this scope succeed, and with
   * `alsoNeeds` as well when the input asks for more (a check inside the action).
   * `readOnly` calls may not write even when they succeed.
   */
  | { scope: Scope; alsoNeeds?: Scope; readOnly?: true }
  /** The same for everyone; `writes` says whether a call may change rows. */
  | {
      public: Outcome | ((principal: Principal) => Outcome);
      writes: boolean | ((principal: Principal) => boolean);
    };

export type MatrixRow = {
  /** "action:<export name>" or "<METHOD> <route pattern>", as the source scan names them. */
  target: string;
  /** What the valid call does, when a target has more than one row. */
  does: string;
  call: ActionCall | RouteCall;
  /** The call ends the caller's session: give each session principal a fresh one first. */
  endsSession?: true;
} & Access;

/** A bulk action over one dead task, frozen by someone else and waiting for a second reviewer. */
async function pendingBulk(ctx: MatrixContext): Promise<string> {
  return (await pendingBulkOf(ctx)).bulkId;
}

/** The same, with the task it holds. */
async function pendingBulkOf(ctx: MatrixContext): Promise<{ bulkId: string; taskId: string }> {
  const task = await ctx.deadTask();
  const id = crypto.randomUUID();
  await ctx.db.query(
    `insert into bulk_actions (id, action, params, selection, as_of, status, two_person,
       member_count, requested_by, requested_principal)
     values ($1, 'resume', '{}', '{}', now(), 'awaiting_second', true, 1,
       'user:first-reviewer@example.com',
       '{"actor":"user:first-reviewer@example.com","who":"the reviewer role","scopes":[]}')`,
    [id],
  );
  await ctx.db.query(
    `insert into bulk_action_members (bulk_id, task_id, position, task_version) values ($1, $2, 1, $3)`,
    [id, task.taskId, task.version],
  );
  return { bulkId: id, taskId: task.taskId };
}

/** A dead task of an agent whose published schema takes any input (a correction must pass it). */
async function publishedDeadTask(ctx: MatrixContext): Promise<TaskAt> {
  const agent = await ctx.apiAgent();
  const task = await ctx.deadTask();
  await ctx.db.query("update tasks set agent = $2 where id = $1", [task.taskId, agent]);
  return task;
}

/** An unknown outcome whose tool the catalog says can ask its provider (reconcile). */
async function reconcilableOutcome(ctx: MatrixContext): Promise<{ taskId: string; key: string }> {
  const { taskId, key } = await ctx.unknownOutcome();
  await ctx.db.query(
    `insert into agent_catalog (name, input_schema, tools, published_by)
     values ('authz-reconcile-agent', '{}', '[{"name": "send_email", "reconcile": true}]', 'e2e')
     on conflict (name) do nothing`,
  );
  await ctx.db.query("update tasks set agent = 'authz-reconcile-agent' where id = $1", [taskId]);
  return { taskId, key };
}

const DEMO_SIGN_IN = { email: "ops@example.com", password: DEMO_PASSWORD };
const SESSION_PRINCIPALS: readonly Principal[] = ["ops", "reviewer", "admin"];
const holdsSession = (p: Principal) => SESSION_PRINCIPALS.includes(p);

/** A disabled alert rule for one row's call (so no delivery is ever enqueued for it). */
async function freshAlertRule(ctx: MatrixContext): Promise<{ id: string; version: number }> {
  const { rows } = await ctx.db.query<{ id: string }>(
    `insert into alert_rules (name, kind, destination, url, enabled, created_by)
     values ($1, 'dead_letter', 'slack', 'https://hooks.example.com/services/authz', false, 'authz')
     returning id`,
    [ctx.unique("authz-rule")],
  );
  const id = rows[0]?.id;
  if (!id) throw new Error("could not insert an alert rule");
  return { id, version: 1 };
}

/** An admin's schedule of an agent no worker runs (nothing ticks it in e2e). */
async function freshSchedule(ctx: MatrixContext): Promise<{ agent: string; name: string }> {
  const name = ctx.unique("authz").toLowerCase();
  await ctx.db.query(
    `insert into schedules (agent, name, cron, timezone, input, missed, source, created_by, updated_by)
     values ('authz-scheduled', $1, '0 9 * * *', 'UTC', '{}', 'skip', 'admin', 'authz', 'authz')`,
    [name],
  );
  return { agent: "authz-scheduled", name };
}

/** A disabled rule with one dead delivery to retry (no worker runs in e2e: it stays queued). */
async function undeliveredAlert(ctx: MatrixContext): Promise<string> {
  const { id } = await freshAlertRule(ctx);
  await ctx.db.query(
    `insert into tasks (agent, input, status, dead_reason, last_error, attempts, created_by)
     values ('alert-delivery', $1, 'dead', 'exhausted', '{"message": "receiver unreachable (ECONNREFUSED)"}', 8, 'authz')`,
    [
      JSON.stringify({
        ruleId: id,
        destination: "slack",
        event: { id: ctx.unique("authz-event") },
      }),
    ],
  );
  return id;
}

export const MATRIX: readonly MatrixRow[] = [
  // Sessions: the way in is public; the way out ends only the caller's own session.
  {
    target: "action:signIn",
    does: "signs in with the right password",
    call: { kind: "action", args: () => [undefined, DEMO_SIGN_IN] },
    public: "redirect:/",
    writes: true,
  },
  {
    target: "action:signInWithSso",
    does: "starts single sign-on (not configured in e2e: back to sign-in)",
    call: { kind: "action", args: () => [{ next: "/" }] },
    public: "redirect:/sign-in",
    writes: false,
  },
  {
    target: "action:signOut",
    does: "signs out",
    call: { kind: "action", args: () => [] },
    public: "redirect:/sign-in",
    writes: holdsSession,
    endsSession: true,
  },

  // Review: the buttons on the task, dead-letter and approval screens.
  {
    target: "action:approveTaskAction",
    does: "approves a parked effect",
    call: { kind: "action", args: async (ctx) => [await ctx.awaitingApprovalTask()] },
    scope: "approvals:decide",
  },
  {
    target: "action:rejectTaskAction",
    does: "rejects a parked effect",
    call: {
      kind: "action",
      args: async (ctx) => [
        { ...(await ctx.awaitingApprovalTask()), from: "awaiting_approval", reason: "not ours" },
      ],
    },
    scope: "approvals:decide",
  },
  {
    target: "action:rejectTaskAction",
    does: "rejects a dead task",
    call: {
      kind: "action",
      args: async (ctx) => [{ ...(await ctx.deadTask()), from: "dead", reason: "not ours" }],
    },
    scope: "approvals:decide",
    alsoNeeds: "deadLetters:review",
  },
  {
    target: "action:resumeTaskAction",
    does: "resumes a dead task",
    call: { kind: "action", args: async (ctx) => [await ctx.deadTask()] },
    scope: "deadLetters:review",
  },
  {
    target: "action:replayTaskAction",
    does: "replays a dead task from step 1",
    call: { kind: "action", args: async (ctx) => [{ ...(await ctx.deadTask()), fromStep: 1 }] },
    scope: "deadLetters:review",
  },
  {
    target: "action:previewReplayAction",
    does: "previews a replay",
    call: {
      kind: "action",
      args: async (ctx) => [{ taskId: (await ctx.deadTask()).taskId, fromStep: 1 }],
    },
    scope: "deadLetters:review",
    readOnly: true,
  },
  // Bulk triage on /dead-letters: the dialog's preview, the freeze, a second reviewer's yes.
  {
    target: "action:previewBulkActionAction",
    does: "previews a bulk replay of chosen dead tasks",
    call: {
      kind: "action",
      args: async (ctx) => [
        {
          action: "replay",
          selection: { kind: "ids", tasks: [await ctx.deadTask()] },
          stepName: null,
        },
      ],
    },
    scope: "deadLetters:review",
    readOnly: true,
  },
  {
    target: "action:requestBulkActionAction",
    does: "freezes a bulk resume of chosen dead tasks",
    call: {
      kind: "action",
      args: async (ctx) => [
        {
          bulkId: crypto.randomUUID(),
          action: "resume",
          selection: { kind: "ids", tasks: [await ctx.deadTask()] },
          asOf: new Date(Date.now() - 60_000).toISOString(),
        },
      ],
    },
    scope: "deadLetters:review",
  },
  {
    target: "action:confirmBulkActionAction",
    does: "confirms another reviewer's money bulk action",
    call: { kind: "action", args: async (ctx) => [{ bulkId: await pendingBulk(ctx) }] },
    scope: "deadLetters:review",
  },
  {
    target: "action:declineBulkActionAction",
    does: "declines another reviewer's money bulk action, with a reason",
    call: {
      kind: "action",
      args: async (ctx) => [{ bulkId: await pendingBulk(ctx), reason: "amounts look doubled" }],
    },
    scope: "deadLetters:review",
  },
  {
    target: "action:previewBulkMemberAction",
    does: "previews what a bulk action would do to one of its tasks",
    call: { kind: "action", args: async (ctx) => [await pendingBulkOf(ctx)] },
    scope: "tasks:read",
    readOnly: true,
  },
  {
    target: "action:withdrawBulkActionAction",
    does: "withdraws another reviewer's money bulk action (an admin's right; its requester's too)",
    call: { kind: "action", args: async (ctx) => [{ bulkId: await pendingBulk(ctx) }] },
    scope: "deadLetters:review",
    alsoNeeds: "tasks:cancel",
  },
  {
    target: "action:correctInputAction",
    does: "corrects a dead task's input and replays it",
    call: {
      kind: "action",
      args: async (ctx) => [
        { ...(await publishedDeadTask(ctx)), input: '{"fixed":true}', fromStep: 1 },
      ],
    },
    scope: "deadLetters:review",
  },
  {
    target: "action:previewCorrectionAction",
    does: "previews an input correction",
    call: {
      kind: "action",
      args: async (ctx) => [
        { taskId: (await publishedDeadTask(ctx)).taskId, input: '{"fixed":true}', fromStep: 1 },
      ],
    },
    scope: "deadLetters:review",
    readOnly: true,
  },
  {
    target: "action:withdrawReviewRequestAction",
    does: "withdraws a pending two-person request",
    call: {
      kind: "action",
      args: async (ctx) => {
        const { taskId, requestId } = await ctx.pendingReviewRequest();
        return [{ taskId, requestId }];
      },
    },
    scope: "deadLetters:review",
  },
  {
    target: "action:resolveOutcomeAction",
    does: "says an unknown outcome did not happen",
    call: {
      kind: "action",
      args: async (ctx) => [{ ...(await ctx.unknownOutcome()), happened: "no" }],
    },
    scope: "outcomes:resolve",
  },
  {
    target: "action:requestReconcileAction",
    does: "asks a worker to check an unknown outcome with the provider",
    call: { kind: "action", args: async (ctx) => [await reconcilableOutcome(ctx)] },
    scope: "outcomes:resolve",
  },
  {
    target: "action:sendEventAction",
    does: "sends an event by hand from a waiting task's page",
    call: { kind: "action", args: () => [{ name: "authz.event", payload: '{"n": 1}' }] },
    scope: "events:send",
  },
  {
    target: "action:cancelTaskAction",
    does: "cancels a task",
    call: { kind: "action", args: async (ctx) => [await ctx.deadTask()] },
    scope: "tasks:cancel",
  },

  // Retry policies: admins only.
  {
    target: "action:setPolicyAction",
    does: "adds an agent's retry policy",
    call: {
      kind: "action",
      args: (ctx) => [{ scope: `agent:${ctx.unique("authz")}`, version: null, maxAttempts: 3 }],
    },
    scope: "policies:write",
  },
  {
    target: "action:setToolRateLimitAction",
    does: "sets a tool's rate limit",
    call: {
      kind: "action",
      args: async (ctx) => [
        { tool: await ctx.freshTool(), version: "", limit: "5", periodSeconds: "1" },
      ],
    },
    scope: "policies:write",
  },
  {
    target: "action:setSpendCapAction",
    does: "sets an agent's daily spend budget",
    call: {
      kind: "action",
      // freshTool publishes its own agent, authz-agent-of-<tool>, with no budget yet.
      args: async (ctx) => [
        { agent: `authz-agent-of-${await ctx.freshTool()}`, version: "", dailyLimit: "5" },
      ],
    },
    scope: "policies:write",
  },
  {
    target: "action:setModelPriceAction",
    does: "sets a model's price",
    call: {
      kind: "action",
      args: (ctx) => [
        {
          model: ctx.unique("authz-model"),
          version: "",
          inputPerMTok: "1",
          outputPerMTok: "2",
          cachedInputPerMTok: "",
        },
      ],
    },
    scope: "policies:write",
  },

  // Alert rules: admins only (everyone who reads tasks sees them).
  {
    target: "action:createAlertRuleAction",
    does: "adds an alert rule",
    call: {
      kind: "action",
      args: (ctx) => [
        {
          name: ctx.unique("authz"),
          kind: "dead_letter",
          destination: "slack",
          url: "https://hooks.example.com/services/authz",
          enabled: false,
        },
      ],
    },
    scope: "alerts:write",
  },
  {
    target: "action:updateAlertRuleAction",
    does: "changes an alert rule",
    call: {
      kind: "action",
      args: async (ctx) => [
        {
          ...(await freshAlertRule(ctx)),
          rule: {
            name: ctx.unique("authz"),
            kind: "outcome_unknown",
            destination: "slack",
            enabled: false,
          },
        },
      ],
    },
    scope: "alerts:write",
  },
  {
    target: "action:deleteAlertRuleAction",
    does: "deletes an alert rule",
    call: { kind: "action", args: async (ctx) => [await freshAlertRule(ctx)] },
    scope: "alerts:write",
  },
  {
    target: "action:retryAlertDeliveriesAction",
    does: "replays a destination's undelivered alerts",
    call: {
      kind: "action",
      args: async (ctx) => [{ ruleId: await undeliveredAlert(ctx) }],
    },
    scope: "alerts:write",
  },

  // Schedules: admins change them (code schedules too: pause and resume).
  {
    target: "action:createScheduleAction",
    does: "adds a schedule",
    call: {
      kind: "action",
      args: async (ctx) => [
        {
          agent: await ctx.apiAgent(),
          name: ctx.unique("authz").toLowerCase(),
          cron: "0 9 * * 1-5",
          timezone: "Europe/Paris",
          missed: "skip",
          input: "{}",
        },
      ],
    },
    scope: "schedules:write",
  },
  {
    target: "action:setSchedulePausedAction",
    does: "pauses a schedule",
    call: {
      kind: "action",
      args: async (ctx) => [{ ...(await freshSchedule(ctx)), paused: true }],
    },
    scope: "schedules:write",
  },
  {
    target: "action:deleteScheduleAction",
    does: "deletes a schedule",
    call: { kind: "action", args: async (ctx) => [await freshSchedule(ctx)] },
    scope: "schedules:write",
  },

  // People: admins only.
  {
    target: "action:createUserAction",
    does: "adds a user",
    call: {
      kind: "action",
      args: (ctx) => [
        {
          email: `${ctx.unique("authz")}@example.com`,
          role: "ops",
          password: "a-long-enough-password",
        },
      ],
    },
    scope: "users:manage",
  },
  {
    target: "action:setUserRoleAction",
    does: "changes another user's role",
    call: {
      kind: "action",
      args: async (ctx) => [{ userId: (await ctx.freshUser("ops")).id, role: "reviewer" }],
    },
    scope: "users:manage",
  },
  {
    target: "action:setUserDisabledAction",
    does: "disables another user",
    call: {
      kind: "action",
      args: async (ctx) => [{ userId: (await ctx.freshUser("ops")).id, disabled: true }],
    },
    scope: "users:manage",
  },
  {
    target: "action:unlockSignInAction",
    does: "lifts another user's sign-in lock",
    call: {
      kind: "action",
      args: async (ctx) => [{ email: (await ctx.freshUser("ops")).email }],
    },
    scope: "users:manage",
  },

  // API tokens: admins only.
  {
    target: "action:createTokenAction",
    does: "creates a token",
    call: {
      kind: "action",
      args: (ctx) => [{ name: ctx.unique("authz"), scopes: ["metrics:read"] }],
    },
    scope: "tokens:manage",
  },
  {
    target: "action:revokeTokenAction",
    does: "revokes a token",
    call: {
      kind: "action",
      args: async (ctx) => [{ tokenId: (await ctx.freshToken(["metrics:read"])).id }],
    },
    scope: "tokens:manage",
  },

  // Route handlers: /api/v1.
  {
    target: "GET /api/v1/openapi.json",
    does: "serves the API description (a published contract: no credentials)",
    call: { kind: "route", path: "/api/v1/openapi.json" },
    public: "ok",
    writes: false,
  },
  {
    target: "GET /api/v1/agents",
    does: "lists agents",
    call: { kind: "route", path: "/api/v1/agents" },
    scope: "tasks:read",
    readOnly: true,
  },
  {
    target: "GET /api/v1/schedules",
    does: "lists schedules",
    call: { kind: "route", path: "/api/v1/schedules" },
    scope: "tasks:read",
    readOnly: true,
  },
  {
    target: "GET /api/v1/tasks",
    does: "lists tasks",
    call: { kind: "route", path: "/api/v1/tasks?limit=5" },
    scope: "tasks:read",
    readOnly: true,
  },
  {
    target: "POST /api/v1/tasks",
    does: "enqueues a task",
    call: {
      kind: "route",
      path: async (ctx) => ({
        path: "/api/v1/tasks",
        body: { agent: await ctx.apiAgent(), input: { n: 1 } },
      }),
    },
    scope: "tasks:enqueue",
  },
  {
    target: "GET /api/v1/tasks/[id]",
    does: "reads a task",
    call: { kind: "route", path: async (ctx) => `/api/v1/tasks/${(await ctx.deadTask()).taskId}` },
    scope: "tasks:read",
    readOnly: true,
  },
  {
    target: "GET /api/v1/ledger",
    does: "pages the ledger",
    call: { kind: "route", path: "/api/v1/ledger?limit=5&kind=task.enqueued" },
    scope: "ledger:read",
    readOnly: true,
  },
  {
    target: "GET /api/v1/effects/[key]",
    does: "reads an effect",
    call: {
      kind: "route",
      path: async (ctx) => `/api/v1/effects/${(await ctx.unknownOutcome()).key}`,
    },
    scope: "tasks:read",
    readOnly: true,
  },
  {
    target: "GET /api/v1/why",
    does: "explains why an effect happened",
    call: {
      kind: "route",
      path: async (ctx) => `/api/v1/why?key=${(await ctx.unknownOutcome()).key}`,
    },
    scope: "ledger:read",
    readOnly: true,
  },
  {
    target: "POST /api/v1/tasks/[id]/approve",
    does: "approves a parked effect",
    call: {
      kind: "route",
      path: async (ctx) => {
        const { taskId, version } = await ctx.awaitingApprovalTask();
        return { path: `/api/v1/tasks/${taskId}/approve`, body: { version } };
      },
    },
    scope: "approvals:decide",
  },
  {
    target: "POST /api/v1/tasks/[id]/approve",
    does: "resumes a dead task",
    call: {
      kind: "route",
      path: async (ctx) => {
        const { taskId, version } = await ctx.deadTask();
        return { path: `/api/v1/tasks/${taskId}/approve`, body: { version } };
      },
    },
    scope: "approvals:decide",
    alsoNeeds: "deadLetters:review",
  },
  {
    target: "POST /api/v1/tasks/[id]/reject",
    does: "rejects a parked effect",
    call: {
      kind: "route",
      path: async (ctx) => {
        const { taskId, version } = await ctx.awaitingApprovalTask();
        return { path: `/api/v1/tasks/${taskId}/reject`, body: { version, reason: "authz" } };
      },
    },
    scope: "approvals:decide",
  },
  {
    target: "POST /api/v1/tasks/[id]/replay",
    does: "replays a dead task from step 1",
    call: {
      kind: "route",
      path: async (ctx) => {
        const { taskId, version } = await ctx.deadTask();
        return { path: `/api/v1/tasks/${taskId}/replay`, body: { version, fromStep: 1 } };
      },
    },
    scope: "deadLetters:review",
  },
  {
    target: "POST /api/v1/tasks/[id]/correct",
    does: "corrects a dead task's input and replays it",
    call: {
      kind: "route",
      path: async (ctx) => {
        const { taskId, version } = await publishedDeadTask(ctx);
        return {
          path: `/api/v1/tasks/${taskId}/correct`,
          body: { version, input: { fixed: true }, fromStep: 1 },
        };
      },
    },
    scope: "deadLetters:review",
  },
  {
    target: "POST /api/v1/tasks/[id]/cancel",
    does: "cancels a task",
    call: {
      kind: "route",
      path: async (ctx) => {
        const { taskId, version } = await ctx.deadTask();
        return { path: `/api/v1/tasks/${taskId}/cancel`, body: { version } };
      },
    },
    scope: "tasks:cancel",
  },
  {
    target: "POST /api/v1/events",
    does: "sends an event to the tasks waiting for it",
    call: {
      kind: "route",
      path: () => ({ path: "/api/v1/events", body: { name: "authz.event", payload: { n: 1 } } }),
    },
    scope: "events:send",
  },
  {
    target: "GET /api/v1/callbacks/[token]",
    does: "shows a callback link's confirmation (the signed link is the authorization)",
    call: { kind: "route", path: "/api/v1/callbacks/not-a-signed-token" },
    public: 404,
    writes: false,
  },
  {
    target: "POST /api/v1/callbacks/[token]",
    does: "uses a callback link (the signed link is the authorization)",
    // No body, as the link's confirm button sends: the web gate refuses an anonymous body.
    call: { kind: "route", path: "/api/v1/callbacks/not-a-signed-token" },
    public: 404,
    writes: false,
  },
  {
    target: "POST /api/v1/effects/[key]/resolve",
    does: "says an unknown outcome did not happen",
    call: {
      kind: "route",
      path: async (ctx) => {
        const { taskId, version, key } = await ctx.unknownOutcome();
        return {
          path: `/api/v1/effects/${key}/resolve`,
          body: { taskId, version, happened: false },
        };
      },
    },
    scope: "outcomes:resolve",
  },

  // Route handlers: what live dashboard screens poll (the page's own query, as JSON).
  {
    target: "GET /api/screens/tasks",
    does: "reads the tasks list a live page shows",
    call: { kind: "route", path: "/api/screens/tasks?status=dead" },
    scope: "tasks:read",
    readOnly: true,
  },
  {
    target: "GET /api/screens/ledger",
    does: "reads the ledger page a live /ledger shows",
    call: { kind: "route", path: "/api/screens/ledger?kind=effect.*" },
    scope: "ledger:read",
    readOnly: true,
  },
  {
    target: "GET /api/screens/overview",
    does: "reads the overview (counts, charts, oldest waiting) a live page shows",
    call: { kind: "route", path: "/api/screens/overview?window=7d" },
    scope: "tasks:read",
    readOnly: true,
  },
  {
    target: "GET /api/screens/task",
    does: "reads the task page a live /tasks/[id] shows",
    call: {
      kind: "route",
      path: async (ctx) => `/api/screens/task?id=${(await ctx.deadTask()).taskId}`,
    },
    scope: "tasks:read",
    readOnly: true,
  },
  {
    target: "GET /api/screens/dead-letters",
    does: "reads the dead-letter groups and filtered list a live page shows",
    call: { kind: "route", path: "/api/screens/dead-letters?reason=exhausted" },
    scope: "tasks:read",
    readOnly: true,
  },
  {
    target: "GET /api/screens/dead-letters-bulk",
    does: "reads a bulk action's progress and outcomes a live page shows",
    call: {
      kind: "route",
      path: async (ctx) => `/api/screens/dead-letters-bulk?id=${await pendingBulk(ctx)}`,
    },
    scope: "tasks:read",
    readOnly: true,
  },
  {
    target: "GET /api/screens/inbox",
    does: "reads the inbox a live page shows (and the task page's 'Next in inbox')",
    call: { kind: "route", path: "/api/screens/inbox?kind=dead_letter" },
    scope: "tasks:read",
    readOnly: true,
  },
  {
    target: "GET /api/screens/inbox-counts",
    does: "reads the sidebar's inbox counts",
    call: { kind: "route", path: "/api/screens/inbox-counts" },
    scope: "tasks:read",
    readOnly: true,
  },
  {
    target: "GET /api/screens/approvals",
    does: "reads the pending approvals and recent decisions a live /approvals shows",
    call: { kind: "route", path: "/api/screens/approvals" },
    scope: "tasks:read",
    readOnly: true,
  },

  {
    target: "GET /api/screens/spend",
    does: "reads the spend figures a live /spend shows",
    call: { kind: "route", path: "/api/screens/spend?agent=invoice-reminder" },
    scope: "metrics:read",
    readOnly: true,
  },

  // Route handlers: operations.
  {
    target: "GET /api/metrics",
    does: "exposes Prometheus metrics",
    call: { kind: "route", path: "/api/metrics" },
    scope: "metrics:read",
    readOnly: true,
  },
  {
    target: "GET /api/spend/export",
    does: "exports the spend per day, agent and model as CSV or JSON",
    call: { kind: "route", path: "/api/spend/export?format=csv" },
    scope: "export:run",
    readOnly: true,
  },
  {
    target: "GET /api/health",
    does: "reports health (for load balancers: no credentials)",
    call: { kind: "route", path: "/api/health" },
    public: "ok",
    writes: false,
  },
  {
    target: "GET /api/auth/[...all]",
    does: "better-auth's session endpoint is not exposed",
    call: { kind: "route", path: "/api/auth/get-session" },
    public: 404,
    writes: false,
  },
  {
    target: "POST /api/auth/[...all]",
    does: "signs in with the right password",
    call: { kind: "route", path: "/api/auth/sign-in/email", body: () => DEMO_SIGN_IN },
    public: "ok",
    writes: true,
  },
  {
    target: "POST /api/auth/[...all]",
    does: "sign-up is off",
    call: {
      kind: "route",
      path: "/api/auth/sign-up/email",
      body: (ctx) => ({
        email: `${ctx.unique("signup")}@example.com`,
        password: "a-long-enough-password",
        name: "Mallory",
      }),
    },
    public: 404,
    writes: false,
  },
  {
    target: "POST /api/auth/[...all]",
    does: "signs out",
    call: { kind: "route", path: "/api/auth/sign-out", body: () => ({}) },
    public: "ok",
    writes: holdsSession,
    endsSession: true,
  },
];

export function rowId(row: MatrixRow): string {
  return `${row.target} (${row.does})`;
}

function roleOf(principal: Principal): Role | undefined {
  return (["ops", "reviewer", "admin"] as const).find((r) => r === principal);
}

/** The outcome the table promises for `principal` calling `row`. */
export function expectedOutcome(row: MatrixRow, principal: Principal): Outcome {
  if ("public" in row) return typeof row.public === "function" ? row.public(principal) : row.public;
  if (principal === "anonymous" || principal === "disabled") return 401;
  const tokenScopes = TOKEN_SCOPES[principal];
  if (tokenScopes) {
    // Server actions are for people in a browser: a token is no session.
    if (row.call.kind === "action") return 401;
    return allowed(tokenScopes, row) ? "ok" : 403;
  }
  const role = roleOf(principal);
  if (!role) throw new Error(`no rule for principal ${principal}`);
  return allowed(ROLE_SCOPES[role], row) ? "ok" : 403;
}

function allowed(scopes: readonly Scope[], row: { scope: Scope; alsoNeeds?: Scope }): boolean {
  return scopes.includes(row.scope) && (!row.alsoNeeds || scopes.includes(row.alsoNeeds));
}

/** Whether the call may change rows; denied calls never may. */
export function mayWrite(row: MatrixRow, principal: Principal): boolean {
  if ("public" in row) return typeof row.writes === "function" ? row.writes(principal) : row.writes;
  return !row.readOnly && expectedOutcome(row, principal) === "ok";
}
