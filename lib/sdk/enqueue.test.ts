import { describe, expect, it } from "vitest";
import { z } from "zod";
import { setUpTestDatabase } from "../../db/testing/database";
import { defineAgent } from "./define";
import { enqueue, InvalidTaskInputError } from "./enqueue";
import { enqueueMany } from "./enqueue-many";

const t = await setUpTestDatabase("enqueue");
const agent = defineAgent({
  name: "greeter",
  input: z.object({ name: z.string().min(1) }),
  tools: {},
  run: async (_ctx, input) => ({ hello: input.name }),
});

const traceparentOf = async (taskId: string) =>
  (
    await t.pool.query<{ traceparent: string | null }>(
      "select traceparent from tasks where id = $1",
      [taskId],
    )
  ).rows[0]?.traceparent;

describe("enqueue", () => {
  it("stores a valid traceparent with the task and ignores an invalid one", async () => {
    const tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    const traced = await enqueue(t.pool, { agent, input: { name: "Ada" }, traceparent: tp });
    expect(await traceparentOf(traced.taskId)).toBe(tp);
    const invalid = await enqueue(t.pool, {
      agent,
      input: { name: "Ada" },
      traceparent: `00-${"0".repeat(32)}-00f067aa0ba902b7-01`,
    });
    expect(await traceparentOf(invalid.taskId)).toBeNull();
    // No active span here (no provider): nothing to store.
    const plain = await enqueue(t.pool, { agent, input: { name: "Ada" } });
    expect(await traceparentOf(plain.taskId)).toBeNull();
    const [many, other] = await enqueueMany(t.pool, [
      { agent, input: { name: "Bo" }, traceparent: tp.toUpperCase() },
      { agent, input: { name: "Cy" }, traceparent: "nonsense" },
    ]);
    expect(await traceparentOf(many?.taskId ?? "")).toBe(tp);
    expect(await traceparentOf(other?.taskId ?? "")).toBeNull();
  });

  it("a key makes enqueueing idempotent: the same key returns the first task", async () => {
    const first = await enqueue(t.pool, { agent, input: { name: "Ada" }, key: "greet-ada" });
    const again = await enqueue(t.pool, { agent, input: { name: "Ada" }, key: "greet-ada" });
    expect(first.created).toBe(true);
    expect(again).toEqual({ taskId: first.taskId, created: false });
    const { rows } = await t.pool.query(
      "select count(*)::int as n from tasks where enqueue_key = 'greet-ada'",
    );
    expect(rows[0].n).toBe(1);
  });

  it("checks the input against the agent's schema and writes nothing when it is wrong", async () => {
    const before = await t.pool.query("select count(*)::int as n from tasks");
    await expect(enqueue(t.pool, { agent, input: { name: "" } })).rejects.toThrow(
      InvalidTaskInputError,
    );
    await expect(enqueue(t.pool, { agent, input: { name: "" } })).rejects.toThrow(
      /invalid input for greeter/,
    );
    const after = await t.pool.query("select count(*)::int as n from tasks");
    expect(after.rows[0].n).toBe(before.rows[0].n);
  });

  it("records who enqueued it in the ledger", async () => {
    const { taskId } = await enqueue(t.pool, {
      agent: "greeter",
      input: { name: "Grace" },
      actor: "billing-service",
    });
    const { rows } = await t.pool.query(
      "select kind, actor from ledger_entries where task_id = $1",
      [taskId],
    );
    expect(rows).toEqual([{ kind: "task.enqueued", actor: "billing-service" }]);
  });
});
