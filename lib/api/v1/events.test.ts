// POST /api/v1/events through its real route handler against real PostgreSQL with real API
// tokens: the scope is required, a bad body names the field, the Idempotency-Key is the
// event's own key, and a waiting task is reached.
import { describe, expect, it } from "vitest";
import { withTransaction } from "../../../db/client";
import { setUpTestDatabase } from "../../../db/testing/database";
import { stager } from "../../../db/testing/stage";
import { operator, type Scope } from "../../domain/access";
import { createApiToken } from "../../server/commands/api-tokens";
import { insertTask } from "../../server/commands/enqueue-task";

const t = await setUpTestDatabase("api_events");
process.env.DATABASE_URL = t.appUrl;
const eventsRoute = await import("../../../app/api/v1/events/route");

async function token(name: string, scopes: Scope[]): Promise<string> {
  const r = await createApiToken(t.pool, operator("test"), { name, scopes });
  if (!r.ok) throw new Error(r.message);
  return r.value.token;
}
const sender = await token("events-sender", ["events:send"]);
const reader = await token("events-reader", ["tasks:read"]);

async function post(body: unknown, opts: { auth?: string | null; key?: string } = {}) {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (opts.auth !== null) headers.authorization = `Bearer ${opts.auth ?? sender}`;
  if (opts.key) headers["idempotency-key"] = opts.key;
  const response = await eventsRoute.POST(
    new Request("http://localhost/api/v1/events", {
      method: "POST",
      headers,
      body: JSON.stringify(body),
    }),
    { params: Promise.resolve({}) },
  );
  return { status: response.status, body: await response.json() };
}

/** A task parked in `waiting` at step 1 for `name` with `match`, as the worker leaves it. */
async function stageWaiting(name: string, match: Record<string, unknown>): Promise<string> {
  const { taskId } = await withTransaction(t.pool, (c) =>
    insertTask(c, { agent: "api-waiter", input: {}, actor: "test" }),
  );
  await stager(t.pool).waiting(taskId, name, match);
  return taskId;
}

describe("POST /api/v1/events", () => {
  it("refuses without a token (401) and without events:send (403)", async () => {
    expect((await post({ name: "a.b" }, { auth: null })).status).toBe(401);
    const refused = await post({ name: "a.b" }, { auth: reader });
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toContain("events:send");
  });

  it("names the field of a bad body (400)", async () => {
    const bad = await post({ name: "Not A Name", payload: {} });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([expect.objectContaining({ in: "body", path: "name" })]);
    const payload = await post({ name: "a.b", payload: "text" });
    expect(payload.status).toBe(400);
    expect(payload.body.errors[0]).toMatchObject({ path: "payload" });
    const extra = await post({ name: "a.b", extra: 1 });
    expect(extra.status).toBe(400);
  });

  it("wakes the waiting task; the same key answers with the first event and delivers nothing new", async () => {
    const task = await stageWaiting("invoice.approved", { invoice: "inv-7" });
    const body = { name: "invoice.approved", payload: { invoice: "inv-7", by: "ada" } };
    const first = await post(body, { key: "approve-inv-7" });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ deliveredTo: [task], created: true });
    const { rows } = await t.pool.query("select status from tasks where id = $1", [task]);
    expect(rows[0].status).toBe("queued");

    const again = await post(body, { key: "approve-inv-7" });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ event: { id: first.body.event.id }, created: false });
    const { rows: entries } = await t.pool.query(
      "select count(*)::int as n from ledger_entries where task_id = $1 and kind = 'event.delivered'",
      [task],
    );
    expect(entries[0].n).toBe(1);

    const reused = await post({ ...body, payload: { invoice: "inv-8" } }, { key: "approve-inv-7" });
    expect(reused.status).toBe(422);
    expect(reused.body.type).toContain("idempotency-key-reused");
  });
});
