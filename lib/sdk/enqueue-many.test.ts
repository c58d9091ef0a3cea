// enqueueMany as the user's code sees it: results in order, keys idempotent, the Agent's own
// schema checked first, one bad item enqueues none, and each task's ledger entry says who.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { setUpTestDatabase } from "../../db/testing/database";
import { defineAgent } from "./define";
import { InvalidTaskInputError } from "./enqueue";
import { enqueueMany, InvalidTaskBatchError } from "./enqueue-many";

const t = await setUpTestDatabase("enqueue-many");
const agent = defineAgent({
  name: "greeter",
  input: z.object({ name: z.string().min(1) }),
  tools: {},
  run: async (_ctx, input) => ({ hello: input.name }),
});

const count = async () =>
  (await t.pool.query<{ n: number }>("select count(*)::int as n from tasks")).rows[0]?.n;

describe("enqueueMany", () => {
  it("enqueues every item in order, each with its task.enqueued entry by the actor", async () => {
    const results = await enqueueMany(
      t.pool,
      [
        { agent, input: { name: "Ada" } },
        { agent: "greeter", input: { name: "Grace" }, key: "greet-grace" },
      ],
      { actor: "billing-service" },
    );
    expect(results.map((r) => r.created)).toEqual([true, true]);
    const { rows } = await t.pool.query(
      `select t.input, l.kind, l.actor from tasks t join ledger_entries l on l.task_id = t.id
       where t.id = any($1::uuid[]) order by l.id`,
      [results.map((r) => r.taskId)],
    );
    expect(rows).toEqual([
      { input: { name: "Ada" }, kind: "task.enqueued", actor: "billing-service" },
      { input: { name: "Grace" }, kind: "task.enqueued", actor: "billing-service" },
    ]);
  });

  it("a key already used returns its first task and enqueues nothing for it", async () => {
    const [first] = await enqueueMany(t.pool, [{ agent, input: { name: "Lin" }, key: "k-lin" }]);
    const before = await count();
    const again = await enqueueMany(t.pool, [
      { agent, input: { name: "Lin" }, key: "k-lin" },
      { agent, input: { name: "Lin" }, key: "k-lin" },
    ]);
    expect(again).toEqual([
      { taskId: first?.taskId, created: false },
      { taskId: first?.taskId, created: false },
    ]);
    expect(await count()).toBe(before);
  });

  it("one item its Agent's schema refuses enqueues none, and the error names its index", async () => {
    const before = await count();
    const attempt = enqueueMany(t.pool, [
      { agent, input: { name: "Ok" } },
      { agent, input: { name: "" } },
    ]);
    await expect(attempt).rejects.toThrow(InvalidTaskBatchError);
    await expect(attempt).rejects.toThrow(InvalidTaskInputError);
    const err = await attempt.catch((e: unknown) => e);
    expect(err).toMatchObject({ items: [{ index: 1 }] });
    expect((err as Error).message).toMatch(
      /^1 of 2 tasks refused, nothing was enqueued: #1: invalid input for greeter: name: /,
    );
    expect(await count()).toBe(before);
  });

  it("checks the schema the workers published for an agent named by string", async () => {
    await t.pool.query(
      `insert into agent_catalog (name, input_schema, tools, published_by) values ('counted', $1, '[]', 'test')`,
      [JSON.stringify({ type: "object", properties: { n: { type: "integer" } }, required: ["n"] })],
    );
    const before = await count();
    const err = await enqueueMany(t.pool, [
      { agent: "counted", input: { n: 1 } },
      { agent: "counted", input: { n: "one" } },
    ]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidTaskBatchError);
    expect((err as InvalidTaskBatchError).items).toEqual([
      { index: 1, message: expect.stringMatching(/^invalid input for counted: n: /) },
    ]);
    expect(await count()).toBe(before);
  });
});
