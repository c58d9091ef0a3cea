// enqueueTask is the one place an input meets the agent's published schema: what it accepts,
// what it refuses and with what (the API's invalid-task-input and unknown-agent answers are
// built from these refusals), and that a refusal writes nothing.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { withTransaction } from "../../../db/client";
import { setUpTestDatabase } from "../../../db/testing/database";
import { operator, type Principal, scopesForRole } from "../../domain/access";
import { enqueueTask } from "./enqueue-task";

const t = await setUpTestDatabase("enqueue-task");

const INPUT_SCHEMA = z.toJSONSchema(
  z.object({ to: z.email(), times: z.number().int().min(1).max(3).default(1) }).strict(),
  { io: "input" },
);
await t.pool.query(
  `insert into agent_catalog (name, input_schema, tools, published_by)
   values ('greeter', $1, '[]', 'test'), ('odd', $2, '[]', 'test')`,
  // "odd" published a schema zod cannot read: not enforced here, the worker checks its input.
  [JSON.stringify(INPUT_SCHEMA), JSON.stringify({ type: "object", $ref: "#/nowhere" })],
);

const alice = operator("user:alice@example.com");
const reviewer: Principal = {
  actor: "user:rita@example.com",
  who: "the reviewer role",
  scopes: scopesForRole("reviewer"),
};

const written = async () => {
  const { rows } = await t.pool.query<{ tasks: number; entries: number }>(
    `select (select count(*) from tasks)::int as tasks,
            (select count(*) from ledger_entries where kind = 'task.enqueued')::int as entries`,
  );
  return rows[0];
};

describe("enqueueTask", () => {
  it("enqueues input the published schema accepts, as the principal", async () => {
    const r = await enqueueTask(t.pool, alice, {
      agent: "greeter",
      input: { to: "ada@example.com" },
    });
    expect(r).toEqual({ ok: true, value: { taskId: expect.any(String), created: true } });
    if (!r.ok) return;
    const { rows } = await t.pool.query(
      "select t.created_by, l.actor from tasks t join ledger_entries l on l.task_id = t.id where t.id = $1",
      [r.value.taskId],
    );
    expect(rows).toEqual([
      { created_by: "user:alice@example.com", actor: "user:alice@example.com" },
    ]);
  });

  it("refuses input the schema does not accept, naming each field, and writes nothing", async () => {
    const before = await written();
    const r = await enqueueTask(t.pool, alice, {
      agent: "greeter",
      input: { to: "not-an-email", times: 9 },
    });
    expect(r.ok).toBe(false);
    if (r.ok || r.code !== "invalid") throw new Error(`expected invalid, got ${JSON.stringify(r)}`);
    expect(new Set(r.issues.issues.map((i) => i.path.join(".")))).toEqual(new Set(["times", "to"]));
    expect(r.message).toMatch(/^the input does not match greeter's input schema: input\.to: /);
    expect(await written()).toEqual(before);
  });

  it("refuses an agent no worker published, with the ones that are, unless told to enqueue it", async () => {
    const before = await written();
    const r = await enqueueTask(t.pool, alice, { agent: "nobody", input: {} });
    expect(r).toMatchObject({
      ok: false,
      code: "not_found",
      known: ["greeter", "odd"],
      message: 'no worker has published an agent named "nobody"; known: greeter, odd',
    });
    expect(await written()).toEqual(before);

    const later = await enqueueTask(t.pool, alice, {
      agent: "nobody",
      input: {},
      unpublished: "enqueue",
    });
    expect(later).toMatchObject({
      ok: true,
      value: { created: true, unchecked: "no worker has published nobody yet" },
    });
  });

  it("enqueues for a schema it cannot read, and says it did not check", async () => {
    const r = await enqueueTask(t.pool, alice, { agent: "odd", input: { anything: 1 } });
    expect(r).toMatchObject({ ok: true, value: { created: true } });
    expect(r.ok && r.value.unchecked).toMatch(/^odd's published input schema cannot be checked/);
  });

  it("refuses a principal without tasks:enqueue before reading anything, and writes nothing", async () => {
    const before = await written();
    const r = await enqueueTask(t.pool, reviewer, {
      agent: "greeter",
      input: { to: "ada@example.com" },
      unpublished: "enqueue",
    });
    expect(r).toEqual({
      ok: false,
      code: "forbidden",
      message: "the reviewer role may not enqueue tasks (needs tasks:enqueue)",
    });
    expect(await written()).toEqual(before);
  });

  it("runs in the caller's transaction when given a client: rolled back, nothing stays", async () => {
    const before = await written();
    await expect(
      withTransaction(t.pool, async (client) => {
        const r = await enqueueTask(client, alice, {
          agent: "greeter",
          input: { to: "ada@example.com" },
        });
        expect(r.ok).toBe(true);
        throw new Error("the caller changes its mind");
      }),
    ).rejects.toThrow("the caller changes its mind");
    expect(await written()).toEqual(before);
  });

  it("with a key, enqueues once", async () => {
    const req = { agent: "greeter", input: { to: "grace@example.com" }, key: "greet-grace" };
    const first = await enqueueTask(t.pool, alice, req);
    const again = await enqueueTask(t.pool, alice, req);
    expect(first).toMatchObject({ ok: true, value: { created: true } });
    expect(again).toEqual({
      ok: true,
      value: { taskId: first.ok ? first.value.taskId : "", created: false },
    });
  });
});
