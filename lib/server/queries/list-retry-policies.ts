// The retry-policies screen: the global row, the per-agent rows, the built-in floor, what is in
// force for each agent the database knows of (and which level each value comes from), and the
// latest policy changes from the ledger.
import { asc, desc, eq, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../../../db/client";
import { ledgerEntries, retryPolicies, tasks } from "../../../db/schema";
import { requireScope, type Viewer } from "../../domain/access";
import type { JsonValue } from "../../domain/json";
import {
  BUILT_IN_POLICY,
  type PartialRetryPolicy,
  type RetryPolicy,
  resolvePolicy,
} from "../../domain/retry-policy";

export const POLICY_CHANGES_LIMIT = 10;

/** Fields in the order screens show them. */
export const POLICY_FIELDS = [
  "maxAttempts",
  "backoffInitialMs",
  "backoffFactor",
  "backoffMaxMs",
  "attemptTimeoutMs",
  "budget",
] as const satisfies readonly (keyof RetryPolicy)[];
export type PolicyField = (typeof POLICY_FIELDS)[number];

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

export type PolicySource = "agent" | "global" | "built-in";

export type AgentPolicyDto = {
  agent: string;
  hasRow: boolean;
  /** The value in force and the level it comes from. A null budget means unlimited. */
  fields: Record<PolicyField, { value: number | null; source: PolicySource }>;
};

export type PolicyChangeDto = {
  id: number;
  at: string;
  actor: string;
  /** Null when the entry's data does not have the shape set-policy writes. */
  scope: string | null;
  before: JsonValue | null;
  after: JsonValue | null;
};

export type RetryPoliciesDto = {
  builtIn: RetryPolicy;
  global: PolicyRowDto | null;
  /** `agent:<name>` rows, by agent name. */
  agentRows: PolicyRowDto[];
  /** Every agent with a row or with tasks, by name. */
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
  };
}

function toPartial(v: PolicyValuesDto | undefined): PartialRetryPolicy | null {
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

/** Values through resolvePolicy (the rule the worker applies), the level through the same order. */
function inForce(
  agent: string,
  agentRow: PolicyRowDto | undefined,
  global: PolicyRowDto | null,
): AgentPolicyDto {
  const resolved = resolvePolicy({
    agent: toPartial(agentRow?.values),
    global: toPartial(global?.values),
  });
  const source = (field: PolicyField): PolicySource =>
    agentRow?.values[field] != null
      ? "agent"
      : global?.values[field] != null
        ? "global"
        : "built-in";
  return {
    agent,
    hasRow: agentRow !== undefined,
    fields: Object.fromEntries(
      POLICY_FIELDS.map((f) => [f, { value: resolved[f], source: source(f) }]),
    ) as AgentPolicyDto["fields"],
  };
}

export async function listRetryPolicies(db: Db, viewer: Viewer | null): Promise<RetryPoliciesDto> {
  requireScope(viewer, "tasks:read");
  return db.transaction(
    async (tx) => {
      const rows = await tx.select().from(retryPolicies).orderBy(asc(retryPolicies.scope));

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
      const names = [
        ...new Set([...byAgent.keys(), ...agentsWithTasks.rows.map((r) => r.agent)]),
      ].sort((a, b) => a.localeCompare(b));

      return {
        builtIn: { ...BUILT_IN_POLICY },
        global,
        agentRows,
        inForce: names.map((name) => inForce(name, byAgent.get(name), global)),
        changes: changeRows.map((c) => {
          const data = changeDataSchema.safeParse(c.data);
          return {
            id: c.id,
            at: c.at.toISOString(),
            actor: c.actor,
            scope: data.success ? data.data.scope : null,
            before: data.success ? ((data.data.before ?? null) as JsonValue | null) : null,
            after: data.success
              ? ((data.data.after ?? null) as JsonValue | null)
              : (c.data as JsonValue),
          };
        }),
        asOf: clock.rows[0]?.as_of ?? new Date().toISOString(),
      };
    },
    { isolationLevel: "repeatable read", accessMode: "read only" },
  );
}
