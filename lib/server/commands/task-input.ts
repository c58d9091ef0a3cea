// Whether a task's input may be enqueued for its agent: the agent published by a worker
// (agent_catalog) and the input matching the JSON Schema it published. The one check for a new
// task's input (enqueue-tasks.ts), a schedule's (create-schedule.ts) and a reviewer's
// corrected one.
import { z } from "zod";
import type { SqlClient } from "../../../db/client";
import type { CommandFailure } from "../../domain/command-result";
import { JsonValueError, toJsonValue } from "../../domain/json";
import { describeIssues } from "../../domain/zod-issues";

/** Why an input may not be enqueued. */
export type InputRefusal =
  /** No worker has published the agent; `known` are the agents that have been. */
  | (CommandFailure & { code: "not_found"; known: string[] })
  /** The input does not match the published schema; `issues` says where, field by field. */
  | (CommandFailure & { code: "invalid"; issues: z.ZodError });

export type InputCheck = { ok: true; unchecked?: string } | InputRefusal;

/**
 * An agent no worker has published yet: "refuse" it (the API and the CLI, where someone typed
 * its name) or "enqueue" it for the worker that will publish and run it.
 */
export type Unpublished = "refuse" | "enqueue";

/** The published schemas of `agents` and the database clock (to the millisecond entries keep). */
export async function readCatalog(
  client: SqlClient,
  agents: readonly string[],
): Promise<{ schemas: Map<string, unknown>; now: Date }> {
  const { rows } = await client.query<{ schemas: Record<string, unknown> | null; now: Date }>({
    name: "enqueue_read_catalog",
    text: `select (select jsonb_object_agg(name, input_schema) from agent_catalog where name = any($1::text[])) as schemas,
                  date_trunc('milliseconds', clock_timestamp()) as now`,
    values: [[...new Set(agents)]],
  });
  const row = rows[0];
  if (!row) throw new Error("enqueue: the catalog read answered no row");
  return { schemas: new Map(Object.entries(row.schemas ?? {})), now: row.now };
}

export async function listAgents(client: SqlClient): Promise<string[]> {
  const names = await client.query<{ name: string }>(
    "select name from agent_catalog order by name",
  );
  return names.rows.map((r) => r.name);
}

export function notFound(agent: string, known: string[]): InputRefusal {
  return {
    ok: false,
    code: "not_found",
    message: `no worker has published an agent named "${agent}"; known: ${known.length ? known.join(", ") : "none yet (start a worker)"}`,
    known,
  };
}

/**
 * Whether `input` matches `published` (the agent's catalog schema, undefined when no worker
 * published it). A not_found answer carries no `known` yet: the caller reads the catalog for it.
 */
export function judgeInput(
  agent: string,
  input: unknown,
  published: unknown,
  unpublished: Unpublished = "refuse",
): InputCheck {
  try {
    toJsonValue(input, "input");
  } catch (err) {
    if (!(err instanceof JsonValueError)) throw err;
    const issues = new z.ZodError([{ code: "custom", path: [], message: err.message, input }]);
    return {
      ok: false,
      code: "invalid",
      message: `the input cannot be stored: ${err.message}`,
      issues,
    };
  }
  if (published === undefined) {
    if (unpublished !== "enqueue") return notFound(agent, []);
    return { ok: true, unchecked: `no worker has published ${agent} yet` };
  }
  const schema = compile(published);
  if (schema instanceof Error) {
    // The worker checks the input with the agent's own zod schema anyway.
    return {
      ok: true,
      unchecked: `${agent}'s published input schema cannot be checked here (${schema.message})`,
    };
  }
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    return {
      ok: false,
      code: "invalid",
      message: `the input does not match ${agent}'s input schema: ${describeIssues(parsed.error, "input.")}`,
      issues: parsed.error,
    };
  }
  return { ok: true };
}

/**
 * Whether `input` matches the JSON Schema the agent's workers published: the one check for a
 * new task's input and for a reviewer's corrected one. `unpublished` as in EnqueueRequest.
 */
export async function checkAgentInput(
  client: SqlClient,
  agent: string,
  input: unknown,
  unpublished: Unpublished = "refuse",
): Promise<InputCheck> {
  const { schemas } = await readCatalog(client, [agent]);
  const check = judgeInput(agent, input, schemas.get(agent), unpublished);
  if (!check.ok && check.code === "not_found") return notFound(agent, await listAgents(client));
  return check;
}

/** Compiled input schemas by their JSON text: agents are few, and compiling is not free. */
const compiled = new Map<string, z.ZodType | Error>();

function compile(inputSchema: unknown): z.ZodType | Error {
  const text = JSON.stringify(inputSchema);
  let schema = compiled.get(text);
  if (schema === undefined) {
    try {
      schema = z.fromJSONSchema(inputSchema as Parameters<typeof z.fromJSONSchema>[0]);
    } catch (err) {
      schema = err instanceof Error ? err : new Error(String(err));
    }
    if (compiled.size >= 500) compiled.clear();
    compiled.set(text, schema);
  }
  return schema;
}
