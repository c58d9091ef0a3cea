// GET /api/v1/agents: what the workers run, with each agent's input JSON Schema.
import { z } from "zod";
import { getPool } from "../../server/db";
import { agentSchema, listAgents } from "../../server/queries/list-agents";
import { defineEndpoint } from "../endpoint";

export const listAgentsEndpoint = defineEndpoint({
  method: "GET",
  path: "/agents",
  operationId: "listAgents",
  tag: "Agents",
  summary: "The agents the workers run, with their input JSON Schemas and tools",
  description:
    "Published by each worker when it starts. `inputSchema` is what POST /tasks checks `input` against.",
  scope: "tasks:read",
  query: z.object({}).strict(),
  response: z.object({ agents: z.array(agentSchema) }),
  problems: [],
  handle: async ({ viewer }) => ({ agents: await listAgents(getPool(), viewer) }),
});
