// enqueue and enqueueMany from the team's own code refuse a task retry policy the runtime
// cannot honour, as the HTTP API and the policy form do, instead of storing one the worker
// would silently set aside.
import { describe, expect, it } from "vitest";
import { setUpTestDatabase } from "../../db/testing/database";
import { enqueue, InvalidTaskInputError } from "./enqueue";
import { enqueueMany, InvalidTaskBatchError } from "./enqueue-many";

const t = await setUpTestDatabase("enqueue_policy");
const count = async () =>
  Number((await t.pool.query("select count(*)::int as n from tasks")).rows[0].n);

describe("a task's own retry policy", () => {
  it("is refused out of range or non-finite, naming the field; nothing is enqueued", async () => {
    const before = await count();
    await expect(
      enqueue(t.pool, {
        agent: "greeter",
        input: {},
        policy: { attemptTimeoutMs: 2 ** 31, backoffFactor: Number.POSITIVE_INFINITY },
      }),
    ).rejects.toThrow(InvalidTaskInputError);
    await expect(
      enqueue(t.pool, { agent: "greeter", input: {}, policy: { maxAttempts: 0 } }),
    ).rejects.toThrow(/invalid retry policy for greeter: maxAttempts: must be at least 1/);
    const batch = enqueueMany(t.pool, [
      { agent: "greeter", input: {} },
      { agent: "greeter", input: {}, policy: { budget: 1e300 } },
    ]);
    await expect(batch).rejects.toThrow(InvalidTaskBatchError);
    await expect(batch).rejects.toThrow(/#1: invalid retry policy for greeter: budget/);
    expect(await count()).toBe(before);
  });

  it("is stored within bounds", async () => {
    const { taskId } = await enqueue(t.pool, {
      agent: "greeter",
      input: {},
      policy: { maxAttempts: 2 },
    });
    const { rows } = await t.pool.query("select policy from tasks where id = $1", [taskId]);
    expect(rows).toEqual([{ policy: { maxAttempts: 2 } }]);
  });
});
