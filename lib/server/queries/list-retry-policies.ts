// The retry-policies screen: the global row, the per-agent rows, the defaults each agent's code
// declares (as its workers published them in agent_catalog), what is in force for every agent
// the database knows of with the level each value comes from, and the latest policy changes
// from the ledger, field by field.
import { asc, desc, eq, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../../../db/client";
import { agentCatalog, ledgerEntries, retryPolicies, tasks } from "../../../db/schema";
import { requireScope, type Viewer } from "../../domain/access";
import type { JsonValue } from "../../domain/json";
import { modelPriceChangeSchema, modelPriceChangeSides } from "../../domain/model-price-form";
import { toolLimitChangeSchema, toolLimitChangeSides } from "../../domain/rate-limit";
import {
  BUILT_IN_POLICY,
  inheritedBy,
  type PartialRetryPolicy,
  POLICY_FIELDS,
  type PolicyField,
  type PolicyFieldChange,
  type PolicyLevel,
  type PolicyLevels,
  partialRetryPolicySchema,
  policyFieldChanges,
  type ResolvedPolicy,
  type RetryPolicy,
  resolvePolicyWithSources,
} from "../../domain/retry-policy";
import { spendCapChangeSchema, spendCapChangeSides } from "../../domain/spend-cap-form";

export { POLICY_FIELDS, type PolicyField };

export const POLICY_CHANGES_LIMIT = 20;

/** One level's values: null where the level does not set the field (it falls through). */
export type PolicyValuesDto = Record<PolicyField, number | null>;

export type PolicyRowDto = {
  scope: string;
  /** The agent an `agent:<name>` row applies to; null for the global row. */
  agent: string | null;
  values: PolicyValuesDto;
  version: number;
  updatedBy: string;
  /** ISO 8601, UTC. */
  updatedAt: string;
};

export type PolicySource = PolicyLevel;

export type PolicyCellDto = { value: number | null; source: PolicySource };

export type AgentPolicyDto = {
  agent: string;
  hasRow: boolean;
  /** What the agent's code declares, as a worker last published it; null when none has. */
  code: PolicyValuesDto | null;
  /** The code version a worker last published; null when none has (or it predates versions). */
  codeVersion: string | null;
  /** The value in force and the level it comes from. A null budget means unlimited. */
  fields: Record<PolicyField, PolicyCellDto>;
  /** What an empty field of this agent's row falls through to (its code, global, built-in). */
  inherited: Record<PolicyField, PolicyCellDto>;
};

export type PolicyChangeDto = {
  id: number;
  at: string;
  actor: string;
  /** Null when the entry's data does not have the shape set-policy writes. */
  scope: string | null;
  /** True when the scope had no row before this change. */
  created: boolean;
  /** The fields that changed, before → after (null: the row did not set it); null if unreadable. */
  fields: PolicyFieldChange[] | null;
  /**
   * A change of an admin setting that is not a policy field (a tool's rate limit, an agent's
   * daily budget, a model's price), both sides as people read them; null otherwise.
   */
  setting: SettingChange | null;
  /** The entry's data as written when its fields cannot be read; null otherwise. */
  data: JsonValue | null;
};

export type SettingChange = {
  /** What changed, as the history names it. */
  field: "rateLimit" | "dailyBudget" | "price";
  label: string;
  before: string;
  after: string;
};

/** A policy.changed entry of an admin setting (scopes `tool:`, `budget:`, `model:`), read. */
function settingChangeOf(
  data: unknown,
): { scope: string; created: boolean; change: SettingChange } | null {
  const tool = toolLimitChangeSchema.safeParse(data);
  if (tool.success) {
    const sides = toolLimitChangeSides(tool.data);
    const change = { field: "rateLimit", label: "Rate limit", ...sides } as const;
    return { scope: tool.data.scope, created: tool.data.before === null, change };
  }
  const budget = spendCapChangeSchema.safeParse(data);
  if (budget.success) {
    const sides = spendCapChangeSides(budget.data);
    const change = { field: "dailyBudget", label: "Daily budget", ...sides } as const;
    return { scope: budget.data.scope, created: budget.data.before === null, change };
  }
  const price = modelPriceChangeSchema.safeParse(data);
  if (price.success) {
    const change = {
      field: "price",
      label: "Price",
      ...modelPriceChangeSides(price.data),
    } as const;
    return { scope: price.data.scope, created: price.data.before === null, change };
  }
  return null;
}

export type RetryPoliciesDto = {
  builtIn: RetryPolicy;
  global: PolicyRowDto | null;
  /** What an empty field of the global row falls through to: the built-in defaults. */
  globalInherited: Record<PolicyField, PolicyCellDto>;
  /** `agent:<name>` rows, by agent name. */
  agentRows: PolicyRowDto[];
  /** Every agent with a row, with tasks or published by a worker, by name. */
  inForce: AgentPolicyDto[];
  /** Newest first, up to POLICY_CHANGES_LIMIT. */
  changes: PolicyChangeDto[];
  asOf: string;
};

const AGENT_PREFIX = "agent:";

const changeDataSchema = z.object({
  scope: z.string(),
  before: z.unknown(),
  after: z.unknown(),
  /** What was in force before and after, per changed field (entries since issue 19). */
  inForce: z.unknown().optional(),
});

type PolicyRow = typeof retryPolicies.$inferSelect;

function values(row: PolicyRow): PolicyValuesDto {
  return {
    maxAttempts: row.maxAttempts,
    backoffInitialMs: row.backoffInitialMs,
    backoffFactor: row.backoffFactor,
    backoffMaxMs: row.backoffMaxMs,
    attemptTimeoutMs: row.attemptTimeoutMs,
    budget: row.budget,
    concurrencyLimit: row.concurrencyLimit,
  };
}

function toValues(p: PartialRetryPolicy): PolicyValuesDto {
  return Object.fromEntries(POLICY_FIELDS.map((f) => [f, p[f] ?? null])) as PolicyValuesDto;
}

function toPartial(v: PolicyValuesDto | null | undefined): PartialRetryPolicy | null {
  if (!v) return null;
  return Object.fromEntries(Object.entries(v).filter(([, value]) => value !== null));
}

function toRowDto(row: PolicyRow): PolicyRowDto {
  return {
    scope: row.scope,
    agent: row.scope.startsWith(AGENT_PREFIX) ? row.scope.slice(AGENT_PREFIX.length) : null,
    values: values(row),
    version: row.version,
    updatedBy: row.updatedBy,
    updatedAt: row.updatedAt.toISOString(),
  };
}

function cells(of: ResolvedPolicy): Record<PolicyField, PolicyCellDto> {
  return Object.fromEntries(
    POLICY_FIELDS.map((f) => [f, { value: of.policy[f], source: of.sources[f] }]),
  ) as Record<PolicyField, PolicyCellDto>;
}

export async function listRetryPolicies(db: Db, viewer: Viewer | null): Promise<RetryPoliciesDto> {
  requireScope(viewer, "tasks:read");
  return db.transaction(
    async (tx) => {
      const rows = await tx.select().from(retryPolicies).orderBy(asc(retryPolicies.scope));
      const catalog = await tx
        .select({
          name: agentCatalog.name,
          policy: agentCatalog.policy,
          version: agentCatalog.version,
        })
        .from(agentCatalog)
        .orderBy(asc(agentCatalog.name));

      // Distinct agents by walking tasks_agent_created_idx one agent at a time (a loose index
      // scan), so the cost grows with the number of agents, not of tasks.
      const agentsWithTasks = await tx.execute<{ agent: string }>(sql`
        with recursive seen(agent) as (
          (select ${tasks.agent} from ${tasks} order by ${tasks.agent} limit 1)
          union all
          select (select t.agent from ${tasks} t where t.agent > seen.agent order by t.agent limit 1)
          from seen where seen.agent is not null
        )
        select agent from seen where agent is not null`);

      const changeRows = await tx
        .select({
          id: ledgerEntries.id,
          at: ledgerEntries.at,
          actor: ledgerEntries.actor,
          data: ledgerEntries.data,
        })
        .from(ledgerEntries)
        .where(eq(ledgerEntries.kind, "policy.changed"))
        .orderBy(desc(ledgerEntries.at), desc(ledgerEntries.id))
        .limit(POLICY_CHANGES_LIMIT);

      const clock = await tx.execute<{ as_of: string }>(
        sql`select to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as as_of`,
      );

      const globalRow = rows.find((r) => r.scope === "global");
      const global = globalRow ? toRowDto(globalRow) : null;
      const agentRows = rows
        .filter((r) => r.scope.startsWith(AGENT_PREFIX))
        .map(toRowDto)
        .sort((a, b) => (a.agent ?? "").localeCompare(b.agent ?? ""));
      const byAgent = new Map(agentRows.map((r) => [r.agent ?? "", r]));
      // A published policy the domain schema refuses is not what the worker applies either
      // (its own copy failed the same check at definition), so it is shown as no code policy.
      const codeOf = new Map(
        catalog.map((c) => {
          const parsed = partialRetryPolicySchema.safeParse(c.policy ?? {});
          return [c.name, parsed.success && c.policy !== null ? toValues(parsed.data) : null];
        }),
      );
      const versionOf = new Map(catalog.map((c) => [c.name, c.version]));
      const names = [
        ...new Set([
          ...byAgent.keys(),
          ...codeOf.keys(),
          ...agentsWithTasks.rows.map((r) => r.agent),
        ]),
      ].sort((a, b) => a.localeCompare(b));

      const inForce = names.map((agent): AgentPolicyDto => {
        const row = byAgent.get(agent);
        const code = codeOf.get(agent) ?? null;
        const levels: PolicyLevels = {
          agent: toPartial(row?.values),
          code: toPartial(code),
          global: toPartial(global?.values),
        };
        return {
          agent,
          hasRow: row !== undefined,
          code,
          codeVersion: versionOf.get(agent) ?? null,
          fields: cells(resolvePolicyWithSources(levels)),
          inherited: cells(inheritedBy("agent", levels)),
        };
      });

      return {
        builtIn: { ...BUILT_IN_POLICY },
        global,
        globalInherited: cells(resolvePolicyWithSources({})),
        agentRows,
        inForce,
        changes: changeRows.map((c): PolicyChangeDto => {
          const setting = settingChangeOf(c.data);
          if (setting) {
            return {
              id: c.id,
              at: c.at.toISOString(),
              actor: c.actor,
              scope: setting.scope,
              created: setting.created,
              fields: null,
              setting: setting.change,
              data: null,
            };
          }
          const data = changeDataSchema.safeParse(c.data);
          const fields = data.success
            ? policyFieldChanges(data.data.before, data.data.after, data.data.inForce)
            : null;
          return {
            id: c.id,
            at: c.at.toISOString(),
            actor: c.actor,
            scope: data.success ? data.data.scope : null,
            created: data.success && (data.data.before ?? null) === null,
            fields,
            setting: null,
            data: fields ? null : (c.data as JsonValue),
          };
        }),
        asOf: clock.rows[0]?.as_of ?? new Date().toISOString(),
      };
    },
    { isolationLevel: "repeatable read", accessMode: "read only" },
  );
}
