// The authorization matrix's rows for the settings screens: retry policies, alert rules, schedules, people and API tokens (matrix.ts).
import type { MatrixRow } from "./matrix-types";
import { freshAlertRule, freshSchedule, undeliveredAlert } from "./row-inputs";

export const SETTINGS_ROWS: readonly MatrixRow[] = [
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
];
