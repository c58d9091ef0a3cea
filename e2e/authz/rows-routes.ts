// The authorization matrix's rows for route handlers: the API, the screens' live reads, operations and auth (matrix.ts).
import { DEMO_SIGN_IN, holdsSession, type MatrixRow } from "./matrix-types";
import { pendingBulk, publishedDeadTask } from "./row-inputs";

export const ROUTE_ROWS: readonly MatrixRow[] = [
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
