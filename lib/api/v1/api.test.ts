// /api/v1 through its real route handlers (the exports Next serves) against real PostgreSQL,
// authenticated with real API tokens. Every response is checked against the OpenAPI document
// the API serves: status documented, body valid for that status's schema.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { withTransaction } from "../../../db/client";
import { setUpTestDatabase } from "../../../db/testing/database";
import { operator, type Scope } from "../../domain/access";
import { deriveEffectKey, payloadFingerprint } from "../../domain/hash";
import { createApiToken } from "../../server/commands/api-tokens";
import { createSchedule } from "../../server/commands/create-schedule";
import { insertTask } from "../../server/commands/enqueue-task";

const t = await setUpTestDatabase("api_v1");
process.env.DATABASE_URL = t.appUrl;

const tasksRoute = await import("../../../app/api/v1/tasks/route");
const taskRoute = await import("../../../app/api/v1/tasks/[id]/route");
const agentsRoute = await import("../../../app/api/v1/agents/route");
const schedulesRoute = await import("../../../app/api/v1/schedules/route");
const approveRoute = await import("../../../app/api/v1/tasks/[id]/approve/route");
const rejectRoute = await import("../../../app/api/v1/tasks/[id]/reject/route");
const replayRoute = await import("../../../app/api/v1/tasks/[id]/replay/route");
const cancelRoute = await import("../../../app/api/v1/tasks/[id]/cancel/route");
const correctRoute = await import("../../../app/api/v1/tasks/[id]/correct/route");
const resolveRoute = await import("../../../app/api/v1/effects/[key]/resolve/route");
const openApiRoute = await import("../../../app/api/v1/openapi.json/route");
const ledgerRoute = await import("../../../app/api/v1/ledger/route");
const effectRoute = await import("../../../app/api/v1/effects/[key]/route");
const whyRoute = await import("../../../app/api/v1/why/route");

type Handler = (
  request: Request,
  context: { params: Promise<Record<string, string>> },
) => Promise<Response>;

const document = (await openApiRoute.GET().json()) as {
  paths: Record<string, Record<string, { responses: Record<string, Record<string, unknown>> }>>;
  components: { schemas: Record<string, unknown> };
};

/** The documented schema of one response, as a zod validator (components become $defs). */
function documented(path: string, method: string, status: number) {
  const response = document.paths[path]?.[method.toLowerCase()]?.responses[String(status)];
  if (!response) return null;
  const content = response.content as Record<string, { schema: unknown }>;
  const [, media] = Object.entries(content)[0] ?? [];
  const local = JSON.parse(
    JSON.stringify({ ...(media?.schema as object), $defs: document.components.schemas }).replaceAll(
      "#/components/schemas/",
      "#/$defs/",
    ),
  );
  return z.fromJSONSchema(local);
}

async function token(name: string, scopes: Scope[]): Promise<string> {
  const r = await createApiToken(t.pool, operator("test"), { name, scopes });
  if (!r.ok) throw new Error(r.message);
  return r.value.token;
}

const ALL: Scope[] = [
  "tasks:read",
  "ledger:read",
  "payloads:read",
  "tasks:enqueue",
  "deadLetters:review",
  "approvals:decide",
  "outcomes:resolve",
  "tasks:cancel",
];
const admin = await token("api-all", ALL);
const enqueuer = await token("api-enqueue", ["tasks:enqueue"]);
const decider = await token("api-decide", ["tasks:read", "approvals:decide"]);

type Call = {
  handler: Handler;
  method?: "GET" | "POST";
  /** The OpenAPI path template, e.g. /tasks/{id}. */
  template: string;
  params?: Record<string, string>;
  query?: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  auth?: string | null;
};

// biome-ignore lint/suspicious/noExplicitAny: bodies are checked against the OpenAPI schema in call()
type Body = any;

async function call(c: Call): Promise<{ status: number; body: Body; headers: Headers }> {
  const method = c.method ?? (c.body === undefined && c.rawBody === undefined ? "GET" : "POST");
  const path = c.template.replace(/\{(\w+)\}/g, (_, name) => c.params?.[name] ?? "");
  const headers: Record<string, string> = { ...c.headers };
  if (c.auth !== null) headers.authorization = `Bearer ${c.auth ?? admin}`;
  if (c.body !== undefined) headers["content-type"] ??= "application/json";
  const request = new Request(`http://localhost/api/v1${path}${c.query ?? ""}`, {
    method,
    headers,
    body: c.rawBody ?? (c.body === undefined ? undefined : JSON.stringify(c.body)),
  });
  const response = await c.handler(request, { params: Promise.resolve(c.params ?? {}) });
  const body = await response.json();
  const schema = documented(c.template, method, response.status);
  expect(
    schema,
    `${method} ${c.template} answered an undocumented ${response.status}`,
  ).not.toBeNull();
  const valid = schema?.safeParse(body);
  expect(
    valid?.success,
    `${method} ${c.template} ${response.status} body: ${JSON.stringify(valid?.error?.issues?.slice(0, 3))}`,
  ).toBe(true);
  if (response.status >= 400) {
    expect(response.headers.get("content-type")).toBe("application/problem+json");
  }
  return { status: response.status, body, headers: response.headers };
}

const INPUT_SCHEMA = z.toJSONSchema(
  z.object({ to: z.email(), times: z.number().int().min(1).max(3).default(1) }).strict(),
  { io: "input" },
);
await t.pool.query(
  `insert into agent_catalog (name, input_schema, tools, published_by)
   values ('greeter', $1, $2, 'test'), ('payer', '{}', $3, 'test')`,
  [
    JSON.stringify(INPUT_SCHEMA),
    JSON.stringify([
      {
        name: "send",
        description: null,
        money: false,
        providerIdempotent: false,
        requiresApproval: false,
        sensitive: [],
      },
    ]),
    JSON.stringify([
      {
        name: "refund",
        description: null,
        money: true,
        providerIdempotent: true,
        reconcile: true,
        requiresApproval: true,
        sensitive: [],
      },
    ]),
  ],
);

const count = async (table: string) =>
  Number((await t.pool.query(`select count(*)::int as n from ${table}`)).rows[0].n);

const enqueue = (body: unknown, headers: Record<string, string> = {}, auth = enqueuer) =>
  call({ handler: tasksRoute.POST, template: "/tasks", body, headers, auth });

describe("POST /tasks", () => {
  it("enqueues, answers 201 with Location, and records the token as the actor", async () => {
    const r = await enqueue({ agent: "greeter", input: { to: "a@example.com" } });
    expect(r.status).toBe(201);
    expect(r.headers.get("location")).toBe(`/api/v1/tasks/${r.body.id}`);
    expect(r.body).toMatchObject({
      agent: "greeter",
      status: "queued",
      createdBy: "token:api-enqueue",
    });
    const { rows } = await t.pool.query("select actor from ledger_entries where task_id = $1", [
      r.body.id,
    ]);
    expect(rows).toEqual([{ actor: "token:api-enqueue" }]);
  });

  it("checks the input against the agent's published schema, and names the agents it knows", async () => {
    const before = await count("tasks");
    const bad = await enqueue({ agent: "greeter", input: { to: "not-an-email", times: 9 } });
    expect(bad.status).toBe(422);
    expect(bad.body.type).toBe("https://agent-ledger.dev/problems/invalid-task-input");
    expect(bad.body.errors.map((e: { path: string }) => e.path).sort()).toEqual([
      "input.times",
      "input.to",
    ]);
    const unknown = await enqueue({ agent: "nobody", input: {} });
    expect(unknown.status).toBe(422);
    expect(unknown.body).toMatchObject({ known: ["greeter", "payer"] });
    expect(await count("tasks")).toBe(before);
  });

  it("refuses malformed requests with the problem that names what is wrong, writing nothing", async () => {
    const before = await count("tasks");
    const cases: [Partial<Call>, number, string][] = [
      [
        { rawBody: "{not json", headers: { "content-type": "application/json" } },
        400,
        "invalid-body",
      ],
      [
        {
          rawBody: "agent=greeter",
          headers: { "content-type": "application/x-www-form-urlencoded" },
        },
        415,
        "unsupported-media-type",
      ],
      [{ body: { agent: "greeter", input: {}, extra: 1 } }, 400, "invalid-request"],
      [{ body: { input: {} } }, 400, "invalid-request"],
      [{ body: { agent: "greeter", runAt: "tomorrow" } }, 400, "invalid-request"],
      [{ body: { agent: "greeter" }, headers: { "idempotency-key": "" } }, 400, "invalid-request"],
      [
        {
          rawBody: JSON.stringify({ agent: "greeter", input: "x".repeat(1_100_000) }),
          headers: { "content-type": "application/json" },
        },
        413,
        "payload-too-large",
      ],
      [
        { body: { agent: "greeter", input: { to: "a@example.com" } }, auth: null },
        401,
        "unauthenticated",
      ],
      [
        { body: { agent: "greeter", input: { to: "a@example.com" } }, auth: decider },
        403,
        "forbidden",
      ],
    ];
    for (const [c, status, type] of cases) {
      const r = await call({ handler: tasksRoute.POST, template: "/tasks", auth: enqueuer, ...c });
      expect([r.status, r.body.type], JSON.stringify(c).slice(0, 120)).toEqual([
        status,
        `https://agent-ledger.dev/problems/${type}`,
      ]);
    }
    expect(await count("tasks")).toBe(before);
  });
});

describe("Idempotency-Key", () => {
  const body = { agent: "greeter", input: { to: "b@example.com" } };

  it("the same key and body return the first response, marked as a replay", async () => {
    const first = await enqueue(body, { "idempotency-key": "order-1" });
    const again = await enqueue(body, { "idempotency-key": '"order-1"' });
    expect(first.status).toBe(201);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    expect(again.headers.get("location")).toBe(first.headers.get("location"));
  });

  it("the same key with a different body is 422 with both fingerprints, and enqueues nothing", async () => {
    const first = await enqueue(body, { "idempotency-key": "order-2" });
    const before = await count("tasks");
    const other = { ...body, input: { to: "c@example.com" } };
    const r = await enqueue(other, { "idempotency-key": "order-2" });
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({
      type: "https://agent-ledger.dev/problems/idempotency-key-reused",
      fingerprint: payloadFingerprint({ ...other, input: other.input }),
      storedFingerprint: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(r.body.fingerprint).not.toBe(r.body.storedFingerprint);
    expect(await count("tasks")).toBe(before);
    expect(first.status).toBe(201);
  });

  it("keys belong to the caller: another token's same key is another request", async () => {
    const mine = await enqueue(body, { "idempotency-key": "shared" });
    const theirs = await enqueue(body, { "idempotency-key": "shared" }, admin);
    expect(theirs.status).toBe(201);
    expect(theirs.headers.get("idempotent-replayed")).toBeNull();
    expect(theirs.body.id).not.toBe(mine.body.id);
  });

  it("a refused request does not use up its key", async () => {
    const refused = await enqueue(
      { agent: "greeter", input: { to: "nope" } },
      { "idempotency-key": "retry-me" },
    );
    expect(refused.status).toBe(422);
    const fixed = await enqueue(
      { agent: "greeter", input: { to: "d@example.com" } },
      { "idempotency-key": "retry-me" },
    );
    expect(fixed.status).toBe(201);
    expect(fixed.headers.get("idempotent-replayed")).toBeNull();
  });

  it("20 concurrent requests with one key: exactly one task; the others replay it or get 409", async () => {
    const before = await count("tasks");
    const results = await Promise.all(
      Array.from({ length: 20 }, () => enqueue(body, { "idempotency-key": "burst" })),
    );
    expect(await count("tasks")).toBe(before + 1);
    const fresh = results.filter((r) => r.status === 201 && !r.headers.get("idempotent-replayed"));
    expect(fresh).toHaveLength(1);
    const id = fresh[0]?.body.id;
    for (const r of results) {
      if (r.status === 201) expect(r.body.id).toBe(id);
      else {
        expect(r.status).toBe(409);
        expect(r.body.type).toBe("https://agent-ledger.dev/problems/idempotency-key-in-use");
        expect(r.headers.get("retry-after")).toBe("1");
      }
    }
  });

  it("past the retention window a key is new again", async () => {
    const first = await enqueue(body, { "idempotency-key": "old" });
    await t.pool.query(
      `update idempotency_keys set created_at = now() - interval '25 hours',
         expires_at = now() - interval '1 hour' where key = 'old'`,
    );
    const later = await enqueue(body, { "idempotency-key": "old" });
    expect(later.status).toBe(201);
    expect(later.headers.get("idempotent-replayed")).toBeNull();
    expect(later.body.id).not.toBe(first.body.id);
  });
});

describe("reading", () => {
  it("lists agents with their input schemas", async () => {
    const r = await call({ handler: agentsRoute.GET, template: "/agents" });
    expect(r.status).toBe(200);
    expect(r.body.agents.map((a: { name: string }) => a.name)).toEqual(["greeter", "payer"]);
    expect(r.body.agents[0].inputSchema).toMatchObject({ type: "object", required: ["to"] });
  });

  it("says which tools can be checked with their provider, and documents it", async () => {
    const r = await call({ handler: agentsRoute.GET, template: "/agents" });
    const tools = Object.fromEntries(
      r.body.agents.map((a: Body) => [a.name, a.tools.map((x: Body) => [x.name, x.reconcile])]),
    );
    // greeter's row comes from a worker that published no flag: nothing to check.
    expect(tools).toEqual({ greeter: [["send", false]], payer: [["refund", true]] });
    const withoutFlag = structuredClone(r.body);
    delete withoutFlag.agents[1].tools[0].reconcile;
    expect(documented("/agents", "GET", 200)?.safeParse(withoutFlag).success).toBe(false);
  });

  it("lists schedules with their next run, as documented", async () => {
    const made = await createSchedule(t.pool, operator("user:admin@example.com"), {
      agent: "greeter",
      name: "morning",
      cron: "0 8 * * *",
      timezone: "Europe/Lisbon",
      input: { to: "a@example.com" },
    });
    expect(made.ok).toBe(true);
    const r = await call({ handler: schedulesRoute.GET, template: "/schedules" });
    expect(r.status).toBe(200);
    expect(r.body.schedules).toMatchObject([
      {
        agent: "greeter",
        name: "morning",
        timezone: "Europe/Lisbon",
        source: "admin",
        lastTask: null,
      },
    ]);
    const refused = await call({
      handler: schedulesRoute.GET,
      template: "/schedules",
      auth: enqueuer,
    });
    expect(refused.status).toBe(403);
  });

  it("lists tasks page by page and reads one with its timeline", async () => {
    const seen = new Set<string>();
    let cursor: string | null = null;
    do {
      const page: { status: number; body: Body } = await call({
        handler: tasksRoute.GET,
        template: "/tasks",
        query: `?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      });
      expect(page.status).toBe(200);
      for (const task of page.body.tasks) seen.add(task.id);
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen.size).toBe(await count("tasks"));
    const [id] = [...seen];
    const one = await call({
      handler: taskRoute.GET,
      template: "/tasks/{id}",
      params: { id: id ?? "" },
    });
    expect(one.status).toBe(200);
    expect(one.body.timeline.entries[0].kind).toBe("task.enqueued");
  });

  it("answers 400 for a bad id or query and 404 for a missing task", async () => {
    const bad = await call({
      handler: taskRoute.GET,
      template: "/tasks/{id}",
      params: { id: "42" },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0]).toMatchObject({ in: "path", path: "id" });
    const missing = await call({
      handler: taskRoute.GET,
      template: "/tasks/{id}",
      params: { id: "0b6f1f0e-6a43-4d6b-9e83-1f2b3c4d5e6f" },
    });
    expect(missing.status).toBe(404);
    const query = await call({
      handler: tasksRoute.GET,
      template: "/tasks",
      query: "?limit=0&status=lost",
    });
    expect(query.status).toBe(400);
    expect(query.body.errors.map((e: { path: string }) => e.path).sort()).toEqual([
      "limit",
      "status",
    ]);
  });

  it("a token without tasks:read is refused with 403", async () => {
    const r = await call({ handler: tasksRoute.GET, template: "/tasks", auth: enqueuer });
    expect(r.status).toBe(403);
  });
});

async function deadTask(agent = "greeter"): Promise<{ id: string; version: number }> {
  const { taskId } = await withTransaction(t.pool, (c) =>
    insertTask(c, { agent, input: { to: "e@example.com" }, actor: "test" }),
  );
  const { rows } = await t.pool.query<{ version: number }>(
    `update tasks set status = 'dead', dead_reason = 'exhausted', attempts = 3, version = version + 1
     where id = $1 returning version`,
    [taskId],
  );
  return { id: taskId, version: rows[0]?.version ?? 0 };
}

describe("review commands", () => {
  it("approve resumes a dead task; the same version again is a version conflict naming who acted", async () => {
    const dead = await deadTask();
    const ok = await call({
      handler: approveRoute.POST,
      template: "/tasks/{id}/approve",
      params: { id: dead.id },
      body: { version: dead.version, note: "fixed upstream" },
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ id: dead.id, status: "queued", waitingFor: null });
    const again = await call({
      handler: approveRoute.POST,
      template: "/tasks/{id}/approve",
      params: { id: dead.id },
      body: { version: dead.version },
    });
    expect(again.status).toBe(409);
    expect(again.body.type).toBe("https://agent-ledger.dev/problems/version-conflict");
    expect(again.body.detail).toContain("token:api-all");
    const state = await call({
      handler: approveRoute.POST,
      template: "/tasks/{id}/approve",
      params: { id: dead.id },
      body: { version: ok.body.version },
    });
    expect(state.status).toBe(409);
    expect(state.body.type).toBe("https://agent-ledger.dev/problems/state-conflict");
  });

  it("a dead task needs deadLetters:review as well as approvals:decide", async () => {
    const dead = await deadTask();
    const r = await call({
      handler: rejectRoute.POST,
      template: "/tasks/{id}/reject",
      params: { id: dead.id },
      body: { version: dead.version, reason: "spam" },
      auth: decider,
    });
    expect(r.status).toBe(403);
    expect(r.body.detail).toContain("deadLetters:review");
    const ok = await call({
      handler: rejectRoute.POST,
      template: "/tasks/{id}/reject",
      params: { id: dead.id },
      body: { version: dead.version, reason: "spam" },
    });
    expect(ok.body).toMatchObject({ status: "rejected" });
  });

  it("replay of money waits for a second reviewer; cancel ends a task", async () => {
    const dead = await deadTask("payer");
    const r = await call({
      handler: replayRoute.POST,
      template: "/tasks/{id}/replay",
      params: { id: dead.id },
      body: { version: dead.version, fromStep: 1 },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      status: "dead",
      waitingFor: { kind: "request", requestedBy: "token:api-all" },
    });
    const cancelled = await call({
      handler: cancelRoute.POST,
      template: "/tasks/{id}/cancel",
      params: { id: dead.id },
      body: { version: r.body.version, reason: "duplicate" },
    });
    expect(cancelled.body).toMatchObject({ status: "cancelled" });
  });

  it("resolves an unknown outcome", async () => {
    const dead = await deadTask();
    const key = deriveEffectKey(dead.id, "send", { n: 1 });
    await t.pool.query(
      `insert into effects (key, task_id, step_seq, tool, intent, args, fingerprint, status)
       values ($1, $2, 1, 'send', '{"n":1}', '{"n":1}', $3, 'started')`,
      [key, dead.id, payloadFingerprint({ n: 1 })],
    );
    const wrong = await call({
      handler: resolveRoute.POST,
      template: "/effects/{key}/resolve",
      params: { key },
      body: { taskId: dead.id, version: dead.version, happened: "yes" },
    });
    expect(wrong.status).toBe(400);
    const r = await call({
      handler: resolveRoute.POST,
      template: "/effects/{key}/resolve",
      params: { key },
      body: {
        taskId: dead.id,
        version: dead.version,
        happened: true,
        result: { messageId: "<m1@x>" },
      },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: "queued" });
  });
});

describe("POST /tasks/{id}/correct", () => {
  const correct = (id: string, body: unknown, auth?: string) =>
    call({
      handler: correctRoute.POST,
      template: "/tasks/{id}/correct",
      params: { id },
      body,
      auth,
    });
  const entries = async (id: string, kind: string) =>
    (
      await t.pool.query<{ actor: string; data: Body }>(
        "select actor, data from ledger_entries where task_id = $1 and kind = $2 order by seq",
        [id, kind],
      )
    ).rows;

  it("records the correction with before, after and who, and replays the task with it", async () => {
    const dead = await deadTask();
    const r = await correct(dead.id, {
      version: dead.version,
      input: { to: "fixed@example.com" },
      note: "typo in the address",
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: dead.id, status: "queued", waitingFor: null });
    expect(await entries(dead.id, "task.input_corrected")).toEqual([
      {
        actor: "token:api-all",
        data: expect.objectContaining({
          before: { to: "e@example.com" },
          after: { to: "fixed@example.com" },
          fromStep: 1,
          note: "typo in the address",
        }),
      },
    ]);
    const { rows } = await t.pool.query("select input from tasks where id = $1", [dead.id]);
    expect(rows[0]?.input).toEqual({ to: "fixed@example.com" });
    // The same version again: the task moved on, and the caller is told who moved it.
    const again = await correct(dead.id, { version: dead.version, input: { to: "x@example.com" } });
    expect(again.status).toBe(409);
    expect(again.body.type).toBe("https://agent-ledger.dev/problems/version-conflict");
    expect(again.body.detail).toContain("token:api-all");
  });

  it("an input the agent's schema refuses is a 400 and records nothing", async () => {
    const dead = await deadTask();
    const r = await correct(dead.id, { version: dead.version, input: { to: "not an address" } });
    expect(r.status).toBe(400);
    expect(r.body.type).toBe("https://agent-ledger.dev/problems/invalid-request");
    expect(r.body.detail).toContain("to");
    const same = await correct(dead.id, { version: dead.version, input: { to: "e@example.com" } });
    expect(same.status).toBe(400);
    expect(same.body.detail).toContain("the same as the task's input");
    const extra = await correct(dead.id, { version: dead.version, input: {}, fromStap: 2 });
    expect(extra.status).toBe(400);
    expect(await entries(dead.id, "task.input_corrected")).toEqual([]);
    expect(await entries(dead.id, "replay.requested")).toEqual([]);
  });

  it("needs deadLetters:review; a task that is not dead is a state conflict", async () => {
    const dead = await deadTask();
    const body = { version: dead.version, input: { to: "f@example.com" } };
    const refused = await correct(dead.id, body, decider);
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toContain("deadLetters:review");
    const missing = await correct("0b6f1f0e-6a43-4d6b-9e83-1f2b3c4d5e6f", body);
    expect(missing.status).toBe(404);
    await t.pool.query("update tasks set status = 'cancelled', dead_reason = null where id = $1", [
      dead.id,
    ]);
    const finished = await correct(dead.id, body);
    expect(finished.status).toBe(409);
    expect(finished.body.type).toBe("https://agent-ledger.dev/problems/state-conflict");
    expect(await entries(dead.id, "task.input_corrected")).toEqual([]);
  });

  it("when money may act, the first call is a request a second, different reviewer confirms", async () => {
    const dead = await deadTask("payer");
    const r = await correct(dead.id, { version: dead.version, input: { to: "g@example.com" } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      status: "dead",
      waitingFor: { kind: "request", requestedBy: "token:api-all" },
    });
    expect(await entries(dead.id, "task.input_corrected")).toEqual([]);
  });
});

describe("the ledger, effects and why", () => {
  it("pages the ledger with filters, and refuses a bad cursor or an unknown filter", async () => {
    const all: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { status: number; body: Body } = await call({
        handler: ledgerRoute.GET,
        template: "/ledger",
        query: `?kind=task.enqueued&limit=4${cursor ? `&cursor=${cursor}` : ""}`,
      });
      expect(page.status).toBe(200);
      for (const e of page.body.entries) {
        expect(e.kind).toBe("task.enqueued");
        all.push(`${e.stream}#${e.seq}`);
      }
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(new Set(all).size).toBe(all.length);
    expect(all.length).toBe(await count("tasks"));
    const bad = await call({
      handler: ledgerRoute.GET,
      template: "/ledger",
      query: "?cursor=nope&colour=red",
    });
    expect(bad.status).toBe(400);
    // Both problems at once: the unknown parameter and the cursor it did not issue.
    expect(bad.body.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ in: "query", path: "cursor" }),
        expect.objectContaining({ in: "query", message: expect.stringContaining("colour") }),
      ]),
    );
  });

  it("reads an effect by key and explains why it happened; an unknown key is 404, an unknown recipient an empty answer", async () => {
    const dead = await deadTask();
    const key = deriveEffectKey(dead.id, "send", { to: "why@example.com" });
    await t.pool.query(
      `insert into effects (key, task_id, step_seq, tool, intent, args, fingerprint, status, result, completed_at)
       values ($1, $2, 1, 'send', $3, $3, $4, 'succeeded', '{"messageId":"<m@x>"}', now())`,
      [
        key,
        dead.id,
        JSON.stringify({ to: "why@example.com" }),
        payloadFingerprint({ to: "why@example.com" }),
      ],
    );
    const effect = await call({
      handler: effectRoute.GET,
      template: "/effects/{key}",
      params: { key },
    });
    expect(effect.status).toBe(200);
    expect(effect.body).toMatchObject({ effect: { key, tool: "send" } });
    const missing = await call({
      handler: effectRoute.GET,
      template: "/effects/{key}",
      params: { key: "0".repeat(64) },
    });
    expect(missing.status).toBe(404);
    const why = await call({
      handler: whyRoute.GET,
      template: "/why",
      query: "?recipient=WHY@example.com",
    });
    expect(why.status).toBe(200);
    expect(why.body.effects.map((e: Body) => e.effect.key)).toEqual([key]);
    const none = await call({
      handler: whyRoute.GET,
      template: "/why",
      query: "?recipient=nobody@example.com",
    });
    expect(none.body.effects).toEqual([]);
    const two = await call({
      handler: whyRoute.GET,
      template: "/why",
      query: `?key=${key}&taskId=${dead.id}`,
    });
    expect(two.status).toBe(400);
    expect(two.body.detail).toContain("give only one of");
  });
});

describe("the OpenAPI document", () => {
  it("is OpenAPI 3.1 and documents every operation's scope and problems", () => {
    expect(document).toMatchObject({ openapi: "3.1.0" });
    const operations = Object.values(document.paths).flatMap((p) => Object.values(p));
    expect(operations.length).toBeGreaterThanOrEqual(9);
    for (const op of operations as Record<string, Body>[]) {
      expect(op["x-scope"]).toEqual(expect.any(String));
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(["401", "403", "500"]));
    }
  });
});
