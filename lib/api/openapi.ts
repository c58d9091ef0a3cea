// The OpenAPI 3.1 document of /api/v1, generated from the endpoint definitions (the same zod
// schemas that parse requests and type responses). OpenAPI 3.1 schemas are JSON Schema 2020-12,
// which zod writes itself; only its local `$defs` move to components, since a `#/$defs/…`
// reference inside a larger document would point at the document's root.
import { z } from "zod";
import { SCOPES } from "../domain/access";
import { COMMON_PROBLEMS, type Endpoint } from "./endpoint";
import { PROBLEM_BASE, PROBLEMS, type ProblemType } from "./problems";

type Schema = Record<string, unknown>;

const problemSchema: Schema = {
  type: "object",
  description: "RFC 9457 problem details. Branch on `type`; `title` is fixed per type.",
  properties: {
    type: {
      type: "string",
      format: "uri",
      enum: Object.keys(PROBLEMS).map((t) => PROBLEM_BASE + t),
    },
    title: { type: "string" },
    status: { type: "integer" },
    detail: { type: "string" },
    errors: {
      type: "array",
      description: "For invalid-request and invalid-task-input: every problem found",
      items: {
        type: "object",
        properties: {
          in: { type: "string", enum: ["path", "query", "header", "body"] },
          path: { type: "string" },
          message: { type: "string" },
        },
        required: ["in", "path", "message"],
      },
    },
  },
  required: ["type", "title", "status"],
};

/** Moves `$defs` into `components` (deduplicated by content) and points the refs there. */
class SchemaHoister {
  readonly components: Record<string, Schema> = { Problem: problemSchema };
  private readonly byContent = new Map<string, string>();

  hoist(generated: Schema, prefix: string): Schema {
    const {
      $defs,
      $schema: _dialect,
      ...root
    } = generated as Schema & {
      $defs?: Record<string, Schema>;
    };
    if (!$defs) return root;
    const names = new Map<string, string>();
    for (const [local, def] of Object.entries($defs)) {
      names.set(local, this.nameFor(local, def, prefix));
    }
    const rewrite = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(rewrite);
      if (value && typeof value === "object") {
        const out: Schema = {};
        for (const [k, v] of Object.entries(value)) {
          const local =
            k === "$ref" && typeof v === "string" ? /^#\/\$defs\/(.+)$/.exec(v)?.[1] : undefined;
          out[k] = local ? `#/components/schemas/${names.get(local) ?? local}` : rewrite(v);
        }
        return out;
      }
      return value;
    };
    for (const [local, def] of Object.entries($defs)) {
      const name = names.get(local) as string;
      this.components[name] ??= rewrite(def) as Schema;
    }
    return rewrite(root) as Schema;
  }

  private nameFor(local: string, def: Schema, prefix: string): string {
    // Identical definitions (the recursive JSON value above all) share one component.
    const content = JSON.stringify(def).replaceAll(`#/$defs/${local}`, "#self");
    const known = this.byContent.get(content);
    if (known) return known;
    const isJson =
      Array.isArray(def.anyOf) &&
      def.anyOf.length === 6 &&
      content.includes('"type":"null"') &&
      content.includes('"type":"array"');
    const name =
      isJson && !this.components.JsonValue ? "JsonValue" : `${prefix}_${local.replace(/^__/, "")}`;
    this.byContent.set(content, name);
    return name;
  }
}

function jsonSchema(schema: z.ZodType, io: "input" | "output"): Schema {
  return z.toJSONSchema(schema, { io, unrepresentable: "any", target: "draft-2020-12" }) as Schema;
}

function parameters(
  schema: z.ZodType | undefined,
  where: "path" | "query",
  hoister: SchemaHoister,
  prefix: string,
): Schema[] {
  if (!schema) return [];
  const object = hoister.hoist(jsonSchema(schema, "input"), prefix) as {
    properties?: Record<string, Schema>;
    required?: string[];
  };
  return Object.entries(object.properties ?? {}).map(([name, property]) => ({
    name,
    in: where,
    required: where === "path" || (object.required ?? []).includes(name),
    ...(typeof property.description === "string" ? { description: property.description } : {}),
    schema: property,
  }));
}

const problemResponse = (types: ProblemType[]) => ({
  description: types.map((t) => `\`${t}\`: ${PROBLEMS[t].title}`).join("; "),
  content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } },
});

export function openApiDocument(
  endpoints: readonly Endpoint[],
  options: { version: string; retentionHours: number },
): Schema {
  const hoister = new SchemaHoister();
  const paths: Record<string, Record<string, Schema>> = {};
  for (const e of endpoints) {
    const prefix = e.operationId.charAt(0).toUpperCase() + e.operationId.slice(1);
    const byStatus = new Map<number, ProblemType[]>();
    for (const type of [...COMMON_PROBLEMS, ...e.problems]) {
      const status = PROBLEMS[type].status;
      const list = byStatus.get(status) ?? [];
      if (!list.includes(type)) list.push(type);
      byStatus.set(status, list);
    }
    const success = e.success ?? { 200: "OK" };
    const responseSchema = hoister.hoist(jsonSchema(e.response, "output"), `${prefix}Response`);
    const responses: Record<string, Schema> = {};
    for (const [status, description] of Object.entries(success)) {
      responses[status] = {
        description,
        ...(e.responseHeaders
          ? {
              headers: Object.fromEntries(
                Object.entries(e.responseHeaders).map(([name, text]) => [
                  name,
                  { description: text, schema: { type: "string" } },
                ]),
              ),
            }
          : {}),
        content: { "application/json": { schema: responseSchema } },
      };
    }
    for (const [status, types] of [...byStatus].sort(([a], [b]) => a - b)) {
      responses[String(status)] = problemResponse(types);
    }
    const operation: Schema = {
      operationId: e.operationId,
      summary: e.summary,
      description: `${e.description ? `${e.description}\n\n` : ""}Requires the \`${e.scope}\` scope.`,
      tags: [e.tag],
      "x-scope": e.scope,
      security: [{ bearerToken: [e.scope] }, { session: [] }],
      parameters: [
        ...parameters(e.params, "path", hoister, `${prefix}Path`),
        ...parameters(e.query, "query", hoister, `${prefix}Query`),
        ...(e.requestHeaders ?? []).map((h) => ({
          name: h.name,
          in: "header",
          required: h.required === true,
          description: h.description,
          schema: { type: "string" },
        })),
      ],
      ...(e.body
        ? {
            requestBody: {
              required: true,
              content: {
                "application/json": {
                  schema: hoister.hoist(jsonSchema(e.body, "input"), `${prefix}Body`),
                },
              },
            },
          }
        : {}),
      responses,
    };
    paths[e.path] ??= {};
    (paths[e.path] as Record<string, Schema>)[e.method.toLowerCase()] = operation;
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Agent Ledger API",
      version: options.version,
      description: `Enqueue agent tasks, read what they did, and review them. Authenticate with an API token (\`Authorization: Bearer alt_…\`, created by an admin with the scopes it needs) or a dashboard session. Errors are RFC 9457 problem details; branch on \`type\`. Idempotency-Key retention: ${options.retentionHours} h.`,
    },
    servers: [{ url: "/api/v1" }],
    tags: [
      { name: "Agents", description: "What the workers run" },
      { name: "Tasks", description: "Start agents and follow them" },
      { name: "Ledger", description: "The append-only record, and why something happened" },
      { name: "Review", description: "The reviewer's commands" },
      { name: "Events", description: "Wake the tasks waiting for an event" },
    ],
    paths,
    components: {
      schemas: hoister.components,
      securitySchemes: {
        bearerToken: {
          type: "http",
          scheme: "bearer",
          description: `An API token as \`Authorization: Bearer alt_…\`, created by an admin (\`agent-ledger tokens create\` or /settings/tokens) with the scopes it needs: ${SCOPES.join(", ")}. Each operation names the scope it requires (OpenAPI 3.1 role list).`,
        },
        session: {
          type: "apiKey",
          in: "cookie",
          name: "agent-ledger.session_token",
          description: "A dashboard session (signed in on /sign-in)",
        },
      },
    },
  };
}
