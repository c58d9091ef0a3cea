// POST /api/v1/tasks with a task's own retry policy, through the real route handler: numbers the
// runtime cannot honour (1e309 and a 400-digit number, both Infinity once JSON is parsed; a
// backoff past the int column; a negative) are refused naming the field, nothing enqueued, as
// the policy form refuses them.
import { describe, expect, it } from "vitest";
import { setUpTestDatabase } from "../../../db/testing/database";
import { operator } from "../../domain/access";
import { createApiToken } from "../../server/commands/api-tokens";

const t = await setUpTestDatabase("api_v1_enqueue_policy");
process.env.DATABASE_URL = t.appUrl;

const tasksRoute = await import("../../../app/api/v1/tasks/route");

const made = await createApiToken(t.pool, operator("test"), {
  name: "enqueuer",
  scopes: ["tasks:enqueue"],
});
if (!made.ok) throw new Error(made.message);
const token = made.value.token;

await t.pool.query(
  "insert into agent_catalog (name, input_schema, tools, published_by) values ('greeter', '{}', '[]', 'test')",
);

/** The body as raw text: JSON.stringify would turn Infinity into null before it left. */
async function post(body: string) {
  const response = await tasksRoute.POST(
    new Request("http://localhost/api/v1/tasks", {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body,
    }),
    { params: Promise.resolve({}) },
  );
  return { status: response.status, body: await response.json() };
}

const count = async () =>
  Number((await t.pool.query("select count(*)::int as n from tasks")).rows[0].n);

describe("POST /tasks with a retry policy", () => {
  it("refuses a number JSON parses to Infinity (1e309, 400 digits), naming the field", async () => {
    const before = await count();
    for (const [field, text] of [
      ["backoffFactor", "1e309"],
      ["attemptTimeoutMs", `1${"0".repeat(399)}`],
    ]) {
      const r = await post(`{"agent":"greeter","input":{},"policy":{"${field}":${text}}}`);
      expect(r).toMatchObject({
        status: 400,
        body: {
          detail: `body.policy.${field}: Infinity is not a JSON number; it cannot be stored`,
        },
      });
    }
    expect(await count()).toBe(before);
  });

  it("refuses out-of-range numbers per field with the bound, enqueueing nothing", async () => {
    const before = await count();
    const r = await post(
      '{"agent":"greeter","input":{},"policy":{"backoffMaxMs":2147483648,"attemptTimeoutMs":86400001,"maxAttempts":-1,"budget":1e300}}',
    );
    expect(r.status).toBe(400);
    expect(
      Object.fromEntries(
        r.body.errors.map((e: { path: string; message: string }) => [e.path, e.message]),
      ),
    ).toEqual({
      "policy.backoffMaxMs": "must be at most 604800000",
      "policy.attemptTimeoutMs": "must be at most 86400000",
      "policy.maxAttempts": "must be at least 1",
      "policy.budget": "must be at most 1000000",
    });
    expect(await count()).toBe(before);
  });

  it("takes a policy within bounds", async () => {
    const r = await post(
      '{"agent":"greeter","input":{},"policy":{"maxAttempts":2,"attemptTimeoutMs":30000}}',
    );
    expect(r.status).toBe(201);
    const { rows } = await t.pool.query("select policy from tasks where id = $1", [r.body.id]);
    expect(rows).toEqual([{ policy: { maxAttempts: 2, attemptTimeoutMs: 30_000 } }]);
  });
});
