// The agents the workers run, as they published them (agent_catalog): name, input JSON Schema,
// tools and their flags. The web app never loads agent code.
import type pg from "pg";
import { z } from "zod";
import { requireScope, type Viewer } from "../../domain/access";

export const toolSourceSchema = z.object({
  kind: z.literal("mcp"),
  server: z.string().describe("The MCP server's name as the worker connected it"),
  tool: z.string().describe("The tool's name on that server"),
  transport: z.enum(["stdio", "http"]),
});
export type ToolSourceDto = z.infer<typeof toolSourceSchema>;

export const catalogToolSchema = z.object({
  name: z.string(),
  description: z.string().nullable(),
  money: z.boolean().describe("Moves money: approving or replaying it takes two reviewers"),
  providerIdempotent: z.boolean(),
  reconcile: z
    .boolean()
    .describe(
      "The tool can ask its provider whether an effect happened, so an unknown outcome can be checked with the provider",
    ),
  requiresApproval: z.boolean(),
  sensitive: z.array(z.string()).describe("Argument paths redacted before the ledger"),
  source: toolSourceSchema
    .nullable()
    .describe("Where the tool comes from when the team did not write it; null for its own tools"),
  rateLimit: z
    .object({ limit: z.number().int(), periodMs: z.number().int(), keyed: z.boolean() })
    .nullable()
    .describe(
      "At most `limit` calls reach the provider in any `periodMs`, across all workers (per key when `keyed`); null without a limit",
    ),
});

export type CatalogToolDto = z.infer<typeof catalogToolSchema>;

export const agentSchema = z.object({
  name: z.string(),
  inputSchema: z
    .record(z.string(), z.json())
    .describe(
      "JSON Schema (draft 2020-12) of the task input, generated from the agent's zod schema",
    ),
  tools: z.array(catalogToolSchema),
  policy: z.json().nullable().describe("The agent's own retry policy, if it declares one"),
  version: z
    .string()
    .nullable()
    .describe(
      "The agent code's version: its declared `version`, or `sha-` and a hash of this entry and its run function; null if published by a worker from before versions",
    ),
  publishedBy: z.string().describe("The worker that published this entry last"),
  updatedAt: z.string(),
});
export type AgentDto = z.infer<typeof agentSchema>;

type Row = {
  name: string;
  input_schema: unknown;
  tools: unknown;
  policy: unknown;
  version: string | null;
  published_by: string;
  updated_at: Date;
};

// A row published by a worker from before "check with the provider" has no `reconcile`: read,
// as the reconcile command reads it, as no tool that can be checked (not as a row to drop). One
// from before MCP tools has no `source`: the team's own tools. A source this version cannot read
// is shown as none rather than losing the agent's tools. A tool without `rateLimit` has none.
const toolsOf = z
  .array(
    catalogToolSchema
      .extend({ source: toolSourceSchema.nullable().catch(null) })
      .extend({ rateLimit: catalogToolSchema.shape.rateLimit.catch(null) })
      .partial({ description: true, reconcile: true, source: true, rateLimit: true }),
  )
  .catch([]);

/** An agent_catalog row's tools as this version reads them, whichever worker published them. */
export function catalogToolsOf(tools: unknown): CatalogToolDto[] {
  return toolsOf.parse(tools).map((t) => ({
    ...t,
    description: t.description ?? null,
    reconcile: t.reconcile === true,
    source: t.source ?? null,
    rateLimit: t.rateLimit ?? null,
  }));
}

function toDto(row: Row): AgentDto {
  const schema = z.record(z.string(), z.json()).safeParse(row.input_schema);
  return {
    name: row.name,
    inputSchema: schema.success ? schema.data : {},
    tools: catalogToolsOf(row.tools),
    policy: z
      .json()
      .nullable()
      .catch(null)
      .parse(row.policy ?? null),
    version: row.version,
    publishedBy: row.published_by,
    updatedAt: row.updated_at.toISOString(),
  };
}

const COLUMNS = "name, input_schema, tools, policy, version, published_by, updated_at";

export async function listAgents(pool: pg.Pool, viewer: Viewer | null): Promise<AgentDto[]> {
  requireScope(viewer, "tasks:read");
  const { rows } = await pool.query<Row>(`select ${COLUMNS} from agent_catalog order by name`);
  return rows.map(toDto);
}
