// The OpenAPI document the running app serves, held to the app's real answers over HTTP: each
// request's status is documented for its operation, and the body validates against the schema
// documented for that status. A refusal is problem+json and writes nothing.
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { operator, SCOPES } from "../../lib/domain/access";
import { createApiToken } from "../../lib/server/commands/api-tokens";
import { matrixContext, unique } from "../authz/matrix-fixtures";
import { BASE_URL } from "../authz/principals";
import { changedTables, snapshot } from "../authz/snapshot";
import { expect, test } from "../fixtures";

const documentSchema = z.object({
  openapi: z.string(),
  paths: z.record(
    z.string(),
    z.record(
      z.string(),
      z.object({
        responses: z.record(
          z.string(),
          z.object({ content: z.record(z.string(), z.object({ schema: z.unknown() })).optional() }),
        ),
      }),
    ),
  ),
  components: z.object({ schemas: z.record(z.string(), z.unknown()) }),
});
type OpenApi = z.infer<typeof documentSchema>;

/** The documented schema of one response as a zod validator (components become $defs). */
function documented(doc: OpenApi, template: string, method: string, status: number) {
  const response = doc.paths[template]?.[method.toLowerCase()]?.responses[String(status)];
  if (!response) return null;
  const [media] = Object.values(response.content ?? {});
  const local = JSON.parse(
    JSON.stringify({ ...(media?.schema as object), $defs: doc.components.schemas }).replaceAll(
      "#/components/schemas/",
      "#/$defs/",
    ),
  );
  return z.fromJSONSchema(local);
}

type Probe = {
  name: string;
  method: "GET" | "POST";
  /** The OpenAPI path template, e.g. /tasks/{id}. */
  template: string;
  path: string;
  body?: string;
  auth?: false;
  status: number;
  /** The problem type a refusal names. */
  type?: string;
};

test("real answers over HTTP are documented and match their documented schemas", async ({ db }) => {
  const served = await fetch(`${BASE_URL}/api/v1/openapi.json`);
  expect(served.status).toBe(200);
  const doc = documentSchema.parse(await served.json());
  expect(doc.openapi).toBe("3.1.0");

  const made = await createApiToken(db, operator("system:e2e-fuzz"), {
    name: unique("fuzz-openapi"),
    scopes: [...SCOPES],
  });
  if (!made.ok) throw new Error(made.message);
  const ctx = matrixContext(db);
  const { rows } = await db.query<{ id: string }>(
    "select id from tasks order by created_at, id limit 1",
  );
  const existing = rows[0]?.id;
  if (!existing) throw new Error("the e2e database has no task");
  const effect = await ctx.unknownOutcome();

  const probes: Probe[] = [
    { name: "list agents", method: "GET", template: "/agents", path: "/agents", status: 200 },
    {
      name: "list tasks",
      method: "GET",
      template: "/tasks",
      path: "/tasks?limit=5",
      status: 200,
    },
    {
      name: "read an existing task",
      method: "GET",
      template: "/tasks/{id}",
      path: `/tasks/${existing}`,
      status: 200,
    },
    {
      name: "read a task that does not exist",
      method: "GET",
      template: "/tasks/{id}",
      path: `/tasks/${randomUUID()}`,
      status: 404,
      type: "not-found",
    },
    {
      name: "read a task by something that is not an id",
      method: "GET",
      template: "/tasks/{id}",
      path: "/tasks/%E2%80%AEnot-an-id",
      status: 400,
      type: "invalid-request",
    },
    {
      name: "enqueue with a wrongly typed body",
      method: "POST",
      template: "/tasks",
      path: "/tasks",
      body: JSON.stringify({ agent: 42, input: "x", runAt: [] }),
      status: 400,
      type: "invalid-request",
    },
    {
      name: "enqueue with a body that is not JSON",
      method: "POST",
      template: "/tasks",
      path: "/tasks",
      body: '{"agent": "x",',
      status: 400,
      type: "invalid-body",
    },
    {
      name: "enqueue for an agent no worker published",
      method: "POST",
      template: "/tasks",
      path: "/tasks",
      body: JSON.stringify({ agent: unique("nobody"), input: {} }),
      status: 422,
      type: "unknown-agent",
    },
    {
      name: "enqueue an array with an item for an agent no worker published",
      method: "POST",
      template: "/tasks",
      path: "/tasks",
      body: JSON.stringify([{ agent: unique("nobody"), input: {} }]),
      status: 422,
      type: "invalid-task-input",
    },
    {
      name: "enqueue an array of more tasks than one request may hold",
      method: "POST",
      template: "/tasks",
      path: "/tasks",
      body: JSON.stringify(Array.from({ length: 1001 }, () => ({ agent: "x" }))),
      status: 413,
      type: "payload-too-large",
    },
    {
      name: "list tasks without a token",
      method: "GET",
      template: "/tasks",
      path: "/tasks",
      auth: false,
      status: 401,
      type: "unauthenticated",
    },
    {
      name: "read the ledger",
      method: "GET",
      template: "/ledger",
      path: "/ledger?limit=3",
      status: 200,
    },
    {
      name: "read an effect",
      method: "GET",
      template: "/effects/{key}",
      path: `/effects/${effect.key}`,
      status: 200,
    },
    {
      name: "ask why, from an effect key",
      method: "GET",
      template: "/why",
      path: `/why?key=${effect.key}`,
      status: 200,
    },
  ];

  for (const probe of probes) {
    await test.step(`${probe.name}: ${probe.method} ${probe.path} → ${probe.status}`, async () => {
      const before = await snapshot(db);
      const response = await fetch(`${BASE_URL}/api/v1${probe.path}`, {
        method: probe.method,
        headers: {
          ...(probe.auth === false ? {} : { authorization: `Bearer ${made.value.token}` }),
          ...(probe.body === undefined ? {} : { "content-type": "application/json" }),
        },
        body: probe.body,
      });
      const body: unknown = await response.json();
      const changed = changedTables(before, await snapshot(db));
      expect.soft(response.status, JSON.stringify(body).slice(0, 300)).toBe(probe.status);
      const schema = documented(doc, probe.template, probe.method, response.status);
      expect
        .soft(schema, `${response.status} is not documented for ${probe.method} ${probe.template}`)
        .not.toBeNull();
      const valid = schema?.safeParse(body);
      expect
        .soft(
          valid?.success,
          `not the documented shape: ${JSON.stringify(valid?.error?.issues?.slice(0, 3))}`,
        )
        .toBe(true);
      if (probe.type) {
        expect.soft(response.headers.get("content-type")).toBe("application/problem+json");
        expect.soft(body).toMatchObject({
          type: `https://agent-ledger.dev/problems/${probe.type}`,
          status: probe.status,
        });
      }
      // Reads and refusals write nothing (a token's last-used time is not compared).
      expect.soft(changed, "tables changed").toEqual([]);
    });
  }
});
