// A worker publishes what it runs at start: each agent's input JSON Schema and its tools'
// flags. The web app never imports agent code; it reads agent_catalog to list agents, show
// input forms and apply the two-person rule to tools that move money.
import { z } from "zod";
import type { SqlClient } from "../../db/client";
import type { Agent } from "../../lib/sdk/define";

export type CatalogTool = {
  name: string;
  description: string | null;
  money: boolean;
  providerIdempotent: boolean;
  requiresApproval: boolean;
  sensitive: string[];
};

export type CatalogEntry = {
  name: string;
  inputSchema: unknown;
  tools: CatalogTool[];
  policy: unknown;
};

function inputSchemaOf(agent: Agent): unknown {
  try {
    return z.toJSONSchema(agent.input, { io: "input", unrepresentable: "any" });
  } catch {
    // A schema JSON Schema cannot express (e.g. a transform-only type) is published as "any".
    return {};
  }
}

export function catalogEntry(agent: Agent): CatalogEntry {
  return {
    name: agent.name,
    inputSchema: inputSchemaOf(agent),
    tools: Object.values(agent.tools).map((t) => ({
      name: t.name,
      description: t.description ?? null,
      money: t.money === true,
      providerIdempotent: t.providerIdempotent === true,
      requiresApproval: typeof t.requiresApproval === "function",
      sensitive: [...(t.sensitive ?? [])],
    })),
    policy: agent.policy ?? null,
  };
}

/** Upserts one row per agent. Several workers publishing the same code write the same rows. */
export async function publishCatalog(
  client: SqlClient,
  agents: readonly Agent[],
  workerId: string,
): Promise<void> {
  if (agents.length === 0) return;
  const entries = agents.map(catalogEntry);
  await client.query(
    `insert into agent_catalog (name, input_schema, tools, policy, published_by, updated_at)
     select e->>'name', e->'inputSchema', e->'tools', e->'policy', $2, now()
       from jsonb_array_elements($1::jsonb) as e
     on conflict (name) do update set input_schema = excluded.input_schema, tools = excluded.tools,
       policy = excluded.policy, published_by = excluded.published_by, updated_at = now()`,
    [JSON.stringify(entries), workerId],
  );
}
