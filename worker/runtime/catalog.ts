// A worker publishes what it runs at start: each agent's input JSON Schema, its tools' flags and
// the retry policy its code declares. The web app never imports agent code; it reads
// agent_catalog to list agents, show input forms, apply the two-person rule to tools that move
// money and show which retry policy is in force (the code's sits under the admin's agent row).
import { z } from "zod";
import type { SqlClient } from "../../db/client";
import { derivedAgentVersion } from "../../lib/domain/agent-version";
import { type MoneyArgs, moneyArgsOf, movesMoney } from "../../lib/domain/money";
import { type PartialRetryPolicy, taskPolicySchema } from "../../lib/domain/retry-policy";
import { isKeyed } from "../../lib/sdk/concurrency-key";
import type { Agent, ToolOrigin } from "../../lib/sdk/define";

export type CatalogTool = {
  name: string;
  description: string | null;
  money: boolean;
  /** Which arguments are the amount and the currency, when the tool says (reviewers sum them). */
  moneyArgs: MoneyArgs | null;
  providerIdempotent: boolean;
  /** The tool can ask its provider whether an effect happened ("check with the provider"). */
  reconcile: boolean;
  requiresApproval: boolean;
  sensitive: string[];
  /** Where the tool comes from when the team did not write it (an MCP server); null otherwise. */
  source: ToolOrigin | null;
  /**
   * The tool's rate limit (`keyed`: counted per key). Published only when set, so an agent
   * without one keeps the derived version it had before limits existed.
   */
  rateLimit?: { limit: number; periodMs: number; keyed: boolean };
};

export type CatalogEntry = {
  name: string;
  inputSchema: unknown;
  tools: CatalogTool[];
  /**
   * Only the fields the code sets; null when it declares no policy. `concurrencyLimit` is
   * defineAgent's `concurrency.limit`.
   */
  policy: PartialRetryPolicy | null;
  /** The concurrency limit counts per `concurrency.key` (issue 21). */
  concurrencyKeyed: boolean;
  /** The agent's own `version`, else derived from the fields above and `run`'s source. */
  version: string;
};

function inputSchemaOf(agent: Agent): unknown {
  try {
    return z.toJSONSchema(agent.input, { io: "input", unrepresentable: "any" });
  } catch {
    // A schema JSON Schema cannot express (e.g. a transform-only type) is published as "any".
    return {};
  }
}

/**
 * The code's policy as the schema reads it. A policy out of bounds (maxAttempts 0, a negative
 * backoff) stops the worker at start: it would otherwise run tasks under values no admin can see
 * or correct on the policies screen.
 */
function codePolicyOf(agent: Agent): PartialRetryPolicy | null {
  const limit = agent.concurrency?.limit;
  if (agent.policy === undefined) return limit === undefined ? null : { concurrencyLimit: limit };
  const parsed = taskPolicySchema.safeParse(agent.policy);
  if (!parsed.success) {
    throw new Error(
      `agent ${agent.name} declares an invalid retry policy: ${z.prettifyError(parsed.error)}`,
    );
  }
  return limit === undefined ? parsed.data : { ...parsed.data, concurrencyLimit: limit };
}

export function catalogEntry(agent: Agent): CatalogEntry {
  const published = {
    name: agent.name,
    inputSchema: inputSchemaOf(agent),
    tools: Object.values(agent.tools).map(
      (t): CatalogTool => ({
        name: t.name,
        description: t.description ?? null,
        money: movesMoney(t.money),
        moneyArgs: moneyArgsOf(t.money),
        providerIdempotent: t.providerIdempotent === true,
        reconcile: typeof t.reconcile === "function",
        requiresApproval: typeof t.requiresApproval === "function",
        sensitive: [...(t.sensitive ?? [])],
        source: t.origin
          ? {
              kind: t.origin.kind,
              server: t.origin.server,
              tool: t.origin.tool,
              transport: t.origin.transport,
            }
          : null,
        ...(t.rateLimit
          ? {
              rateLimit: {
                limit: t.rateLimit.limit,
                periodMs: t.rateLimit.periodMs,
                keyed: typeof t.rateLimit.key === "function",
              },
            }
          : {}),
      }),
    ),
    policy: codePolicyOf(agent),
  };
  return {
    ...published,
    concurrencyKeyed: isKeyed(agent),
    version: agent.version ?? derivedAgentVersion(published, agent.run.toString()),
  };
}

/**
 * Upserts one row per agent and returns what it published. Several workers publishing the same
 * code write the same rows; of two releases running at once, the last to start is listed.
 */
export async function publishCatalog(
  client: SqlClient,
  agents: readonly Agent[],
  workerId: string,
): Promise<CatalogEntry[]> {
  if (agents.length === 0) return [];
  const entries = agents.map(catalogEntry);
  await client.query(
    `insert into agent_catalog (name, input_schema, tools, policy, version, published_by, updated_at, concurrency_keyed)
     select e->>'name', e->'inputSchema', e->'tools', e->'policy', e->>'version', $2, now(),
            (e->>'concurrencyKeyed')::boolean
       from jsonb_array_elements($1::jsonb) as e
     on conflict (name) do update set input_schema = excluded.input_schema, tools = excluded.tools,
       policy = excluded.policy, version = excluded.version, published_by = excluded.published_by,
       concurrency_keyed = excluded.concurrency_keyed,
       updated_at = now()`,
    [JSON.stringify(entries), workerId],
  );
  return entries;
}
