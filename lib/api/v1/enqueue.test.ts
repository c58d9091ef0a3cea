// POST /api/v1/tasks with an array body, through the real route handler against real
// PostgreSQL with a real API token: all or nothing, bad items named by index, the item limit,
// one Idempotency-Key for the whole array, and every answer as the OpenAPI document says.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { setUpTestDatabase } from "../../../db/testing/database";
import { operator } from "../../domain/access";
import { createApiToken } from "../../server/commands/api-tokens";
import { verifyLedger } from "../../server/ledger/verify-ledger";
import { MAX_TASKS_PER_REQUEST } from "./enqueue";

const t = await setUpTestDatabase("api_v1_enqueue");
process.env.DATABASE_URL = t.appUrl;

const tasksRoute = await import("../../../app/api/v1/tasks/route");
const openApiRoute = await import("../../../app/api/v1/openapi.json/route");

const document = (await openApiRoute.GET().json()) as {
  paths: Record<string, Record<string, { responses: Record<string, Record<string, unknown>> }>>;
  components: { schemas: Record<string, unknown> };
};

function documented(status: number) {
  const response = document.paths["/tasks"]?.post?.responses[String(status)];
  if (!response) return null;
  const [media] = Object.values(response.content as Record<string, { schema: unknown }>);
  return z.fromJSONSchema(
    JSON.parse(
      JSON.stringify({
        ...(media?.schema as object),
        $defs: document.components.schemas,
      }).replaceAll("#/components/schemas/", "#/$defs/"),
    ),
  );
}

const made = await createApiToken(t.pool, operator("test"), {
  name: "enqueuer",
  scopes: ["tasks:enqueue"],
});
if (!made.ok) throw new Error(made.message);
const token = made.value.token;

await t.pool.query(
  "insert into agent_catalog (name, input_schema, tools, published_by) values ('greeter', $1, '[]', 'test')",
  [JSON.stringify(z.toJSONSchema(z.object({ to: z.email() }).strict(), { io: "input" }))],
);

// biome-ignore lint/suspicious/noExplicitAny: bodies are checked against the OpenAPI schema in post()
type Body = any;

async function post(body: unknown, headers: Record<string, string> = {}) {
  const response = await tasksRoute.POST(
    new Request("http://localhost/api/v1/tasks", {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    }),
    { params: Promise.resolve({}) },
  );
  const json: Body = await response.json();
  const schema = documented(response.status);
  expect(schema, `an undocumented ${response.status}`).not.toBeNull();
  const valid = schema?.safeParse(json);
  expect(valid?.success, JSON.stringify(valid?.error?.issues?.slice(0, 3))).toBe(true);
  return { status: response.status, body: json, headers: response.headers };
}

const count = async () =>
  Number((await t.pool.query("select count(*)::int as n from tasks")).rows[0].n);

const greet = (i: number) => ({ agent: "greeter", input: { to: `user${i}@example.com` } });

describe("POST /tasks with an array", () => {
  it("enqueues every item, answering the tasks in the array's order, each with its ledger entry", async () => {
    const before = await count();
    const r = await post([greet(1), greet(2), { ...greet(3), runAt: "2030-01-01T00:00:00Z" }]);
    expect(r.status).toBe(201);
    expect(r.headers.get("location")).toBeNull();
    expect(r.body.tasks).toHaveLength(3);
    expect(r.body.tasks[0]).toEqual({
      id: expect.any(String),
      agent: "greeter",
      status: "queued",
      createdBy: "token:enqueuer",
      location: `/api/v1/tasks/${r.body.tasks[0].id}`,
    });
    expect(await count()).toBe(before + 3);
    const { rows } = await t.pool.query(
      `select t.input, l.kind, l.actor from tasks t join ledger_entries l on l.task_id = t.id
       where t.id = any($1::uuid[]) order by l.id`,
      [r.body.tasks.map((x: { id: string }) => x.id)],
    );
    expect(rows.map((x) => x.input.to)).toEqual([
      "user1@example.com",
      "user2@example.com",
      "user3@example.com",
    ]);
    expect(new Set(rows.map((x) => `${x.kind} ${x.actor}`))).toEqual(
      new Set(["task.enqueued token:enqueuer"]),
    );
    expect((await verifyLedger(t.pool)).problems).toEqual([]);
  });

  it("sets each item's priority, and refuses one out of range by its index (400, nothing enqueued)", async () => {
    const r = await post([{ ...greet(20), priority: 12 }, greet(21)]);
    expect(r.status).toBe(201);
    const { rows } = await t.pool.query(
      "select priority from tasks where id = any($1::uuid[]) order by input->>'to'",
      [r.body.tasks.map((x: { id: string }) => x.id)],
    );
    expect(rows.map((x) => x.priority)).toEqual([12, 0]);
    const before = await count();
    const bad = await post([greet(22), { ...greet(23), priority: 1e6 }]);
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain("must be at most 1000");
    expect(JSON.stringify(bad.body)).toContain("1.priority");
    expect(await count()).toBe(before);
  });

  it("refuses the whole array when an item does not match its schema or names an unknown agent: 422, every bad index, nothing enqueued", async () => {
    const before = await count();
    const r = await post([
      greet(10),
      { agent: "greeter", input: { to: "nope" } },
      { agent: "nobody" },
    ]);
    expect(r.status).toBe(422);
    expect(r.body.type).toBe("https://agent-ledger.dev/problems/invalid-task-input");
    expect(r.body.errors).toEqual([
      { in: "body", path: "1.input.to", message: expect.any(String) },
      {
        in: "body",
        path: "2.agent",
        message: 'no worker has published an agent named "nobody"; known: greeter',
      },
    ]);
    expect(r.body.known).toEqual(["greeter"]);
    expect(r.body.detail).toMatch(/^2 of 3 tasks refused, nothing was enqueued: 1\.input\.to: /);
    expect(await count()).toBe(before);
  });

  it("a malformed item is 400 at its index; an empty array and a body that is neither are 400 too", async () => {
    const before = await count();
    const r = await post([greet(20), { agent: "", input: {} }, { agent: "greeter", extra: 1 }]);
    expect(r.status).toBe(400);
    expect(r.body.type).toBe("https://agent-ledger.dev/problems/invalid-request");
    expect(r.body.errors.map((e: { path: string }) => e.path)).toEqual(["1.agent", "2"]);
    expect((await post([])).body.errors).toEqual([
      { in: "body", path: "", message: "must hold at least one task" },
    ]);
    expect((await post("greeter")).body.errors).toEqual([
      { in: "body", path: "", message: "must be a task (an object) or an array of tasks" },
    ]);
    expect(await count()).toBe(before);
  });

  it(`more than ${MAX_TASKS_PER_REQUEST} items is 413, saying to split them`, async () => {
    const before = await count();
    const r = await post(
      Array.from({ length: MAX_TASKS_PER_REQUEST + 1 }, () => ({ agent: "greeter" })),
    );
    expect(r.status).toBe(413);
    expect(r.body.type).toBe("https://agent-ledger.dev/problems/payload-too-large");
    expect(r.body.detail).toBe(
      `at most ${MAX_TASKS_PER_REQUEST} tasks per request; this one has ${MAX_TASKS_PER_REQUEST + 1}: send them in several requests`,
    );
    expect(await count()).toBe(before);
  });

  it(`${MAX_TASKS_PER_REQUEST} items go in one request`, async () => {
    const before = await count();
    const r = await post(Array.from({ length: MAX_TASKS_PER_REQUEST }, (_, i) => greet(1000 + i)));
    expect(r.status).toBe(201);
    expect(new Set(r.body.tasks.map((x: { id: string }) => x.id)).size).toBe(MAX_TASKS_PER_REQUEST);
    expect(await count()).toBe(before + MAX_TASKS_PER_REQUEST);
  });

  it("one Idempotency-Key covers the whole array: the same array replays, another is refused", async () => {
    const before = await count();
    const body = [greet(30), greet(31)];
    const first = await post(body, { "idempotency-key": "batch-1" });
    const again = await post(body, { "idempotency-key": "batch-1" });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    const other = await post([greet(30)], { "idempotency-key": "batch-1" });
    expect(other.status).toBe(422);
    expect(other.body.type).toBe("https://agent-ledger.dev/problems/idempotency-key-reused");
    expect(await count()).toBe(before + 2);
  });

  it("a one-task body still answers the task itself, with Location", async () => {
    const r = await post(greet(40));
    expect(r.status).toBe(201);
    expect(r.headers.get("location")).toBe(`/api/v1/tasks/${r.body.id}`);
  });
});
