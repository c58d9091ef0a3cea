// enqueueTasks: a batch is checked item by item as enqueueTask checks one, then written all or
// nothing, each task with its own ledger stream whose first entry verifies; keys stay idempotent
// across batches and within one.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { withTransaction } from "../../../db/client";
import { setUpTestDatabase } from "../../../db/testing/database";
import { watchNamedStatements } from "../../../db/testing/statement-names";
import { operator, type Principal, scopesForRole } from "../../domain/access";
import { verifyLedger } from "../ledger/verify-ledger";
import { ENQUEUE_CHUNK, enqueueTasks } from "./enqueue-tasks";

const t = await setUpTestDatabase("enqueue-tasks");

await t.pool.query(
  `insert into agent_catalog (name, input_schema, tools, published_by) values ('greeter', $1, '[]', 'test')`,
  [
    JSON.stringify(
      z.toJSONSchema(z.object({ to: z.email() }).strict(), {
        io: "input",
      }),
    ),
  ],
);

const alice = operator("user:alice@example.com");
const reviewer: Principal = {
  actor: "user:rita@example.com",
  who: "the reviewer role",
  scopes: scopesForRole("reviewer"),
};

const written = async () => {
  const { rows } = await t.pool.query<{ tasks: number; entries: number; streams: number }>(
    `select (select count(*) from tasks)::int as tasks,
            (select count(*) from ledger_entries where kind = 'task.enqueued')::int as entries,
            (select count(*) from ledger_streams where stream like 'task:%')::int as streams`,
  );
  return rows[0];
};

const greet = (i: number) => ({ agent: "greeter", input: { to: `user${i}@example.com` } });

describe("enqueueTasks", () => {
  it("writes each task with its own stream and task.enqueued entry, in order, and the chains verify", async () => {
    const before = await written();
    const r = await enqueueTasks(t.pool, alice, [
      greet(1),
      { ...greet(2), runAt: new Date("2030-01-01T00:00:00Z"), policy: { maxAttempts: 2 } },
      greet(3),
    ]);
    if (!r.ok) throw new Error(r.message);
    expect(r.value.map((v) => v.created)).toEqual([true, true, true]);
    const { rows } = await t.pool.query(
      `select t.id, t.input, t.run_at, t.policy, t.created_by, l.stream, l.seq, l.actor, l.data,
              s.head_seq, s.head_hash = l.hash as head_is_entry
       from tasks t join ledger_entries l on l.task_id = t.id join ledger_streams s on s.stream = l.stream
       where t.id = any($1::uuid[]) order by l.id`,
      [r.value.map((v) => v.taskId)],
    );
    expect(rows.map((x) => x.id)).toEqual(r.value.map((v) => v.taskId));
    expect(rows[1]).toMatchObject({
      input: { to: "user2@example.com" },
      policy: { maxAttempts: 2 },
      created_by: "user:alice@example.com",
      stream: `task:${r.value[1]?.taskId}`,
      seq: 1,
      actor: "user:alice@example.com",
      data: {
        agent: "greeter",
        input: { to: "user2@example.com" },
        key: null,
        policy: { maxAttempts: 2 },
      },
      head_seq: 1,
      head_is_entry: true,
    });
    expect(rows[1]?.run_at.toISOString()).toBe("2030-01-01T00:00:00.000Z");
    expect(rows[0]?.policy).toBeNull();
    expect(await written()).toEqual({
      tasks: (before?.tasks ?? 0) + 3,
      entries: (before?.entries ?? 0) + 3,
      streams: (before?.streams ?? 0) + 3,
    });
    const report = await verifyLedger(t.pool);
    expect(report.problems).toEqual([]);
  });

  it("refuses the whole batch when any item is refused, naming every bad index, and writes nothing", async () => {
    const before = await written();
    const r = await enqueueTasks(t.pool, alice, [
      greet(10),
      { agent: "greeter", input: { to: "not-an-email" } },
      greet(11),
      { agent: "nobody", input: {} },
    ]);
    if (r.ok || r.code !== "invalid") throw new Error(`expected invalid, got ${JSON.stringify(r)}`);
    expect(r.items.map((i) => [i.index, i.refusal.code])).toEqual([
      [1, "invalid"],
      [3, "not_found"],
    ]);
    expect(r.items[1]?.refusal).toMatchObject({
      known: ["greeter"],
      message: 'no worker has published an agent named "nobody"; known: greeter',
    });
    expect(r.message).toMatch(
      /^2 of 4 tasks refused, nothing was enqueued: #1: the input does not match greeter's input schema: input\.to: .*; #3: no worker/,
    );
    expect(await written()).toEqual(before);
  });

  it("refuses a principal without tasks:enqueue, and writes nothing", async () => {
    const before = await written();
    const r = await enqueueTasks(t.pool, reviewer, [greet(20)]);
    expect(r).toMatchObject({ ok: false, code: "forbidden" });
    expect(await written()).toEqual(before);
  });

  it("keys: a key taken before or earlier in the batch returns that task and writes nothing for it", async () => {
    const first = await enqueueTasks(t.pool, alice, [{ ...greet(30), key: "k-30" }]);
    if (!first.ok) throw new Error(first.message);
    const before = await written();
    const r = await enqueueTasks(t.pool, alice, [
      { ...greet(30), key: "k-30" },
      { ...greet(31), key: "k-31" },
      greet(32),
      { ...greet(31), key: "k-31" },
    ]);
    if (!r.ok) throw new Error(r.message);
    expect(r.value.map((v) => v.created)).toEqual([false, true, true, false]);
    expect(r.value[0]?.taskId).toBe(first.value[0]?.taskId);
    expect(r.value[3]?.taskId).toBe(r.value[1]?.taskId);
    expect(await written()).toEqual({
      tasks: (before?.tasks ?? 0) + 2,
      entries: (before?.entries ?? 0) + 2,
      streams: (before?.streams ?? 0) + 2,
    });
  });

  it("a batch longer than one statement is still all or nothing", async () => {
    const before = await written();
    const many = Array.from({ length: ENQUEUE_CHUNK + 5 }, (_, i) => greet(1000 + i));
    const bad = [...many, { agent: "greeter", input: { to: 7 } }];
    const refused = await enqueueTasks(t.pool, alice, bad);
    expect(refused).toMatchObject({ ok: false, code: "invalid" });
    if (refused.ok || refused.code !== "invalid") return;
    expect(refused.items.map((i) => i.index)).toEqual([ENQUEUE_CHUNK + 5]);
    expect(await written()).toEqual(before);

    const r = await enqueueTasks(t.pool, alice, many);
    if (!r.ok) throw new Error(r.message);
    expect(new Set(r.value.map((v) => v.taskId)).size).toBe(ENQUEUE_CHUNK + 5);
    expect((await written())?.entries).toBe((before?.entries ?? 0) + ENQUEUE_CHUNK + 5);
    expect((await verifyLedger(t.pool)).problems).toEqual([]);
  });

  it("runs in the caller's transaction when given a client: rolled back, nothing stays", async () => {
    const before = await written();
    await expect(
      withTransaction(t.pool, async (client) => {
        const r = await enqueueTasks(client, alice, [greet(40), greet(41)]);
        expect(r.ok).toBe(true);
        throw new Error("the caller changes its mind");
      }),
    ).rejects.toThrow("the caller changes its mind");
    expect(await written()).toEqual(before);
  });

  it("an agent no worker published is enqueued when the caller says so, and says it was not checked", async () => {
    const r = await enqueueTasks(t.pool, alice, [
      { agent: "later", input: { x: 1 }, unpublished: "enqueue" },
      { ...greet(50), unpublished: "enqueue" },
    ]);
    if (!r.ok) throw new Error(r.message);
    expect(r.value[0]).toMatchObject({
      created: true,
      unchecked: "no worker has published later yet",
    });
    expect(r.value[1]?.unchecked).toBeUndefined();
  });
});

const bob = operator("user:bob@example.com");

describe("single enqueues at the same moment", () => {
  it("share a statement, each answered as if alone: a refused one is refused, the rest enqueued under their own actor", async () => {
    const sent = watchNamedStatements(t.pool);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => {
        const who = i % 2 === 0 ? alice : bob;
        if (i === 7) return enqueueTasks(t.pool, who, [{ agent: "greeter", input: { to: "no" } }]);
        if (i === 11) return enqueueTasks(t.pool, who, [{ agent: "nobody", input: {} }]);
        return enqueueTasks(t.pool, who, [greet(100 + i)]);
      }),
    );
    // Those that reached the insert in one turn of the event loop went together, and any that
    // came while a statement was in flight went in the next.
    // Unkeyed all: the plain insert (no ON CONFLICT to confirm).
    expect(sent.count("enqueue_insert_tasks")).toBe(0);
    expect(sent.count("enqueue_insert_tasks_unkeyed")).toBeLessThan(20);
    expect(sent.count("enqueue_insert_tasks_unkeyed")).toBeGreaterThanOrEqual(1);
    expect(answers.map((a) => a.ok)).toEqual(
      Array.from({ length: 20 }, (_, i) => i !== 7 && i !== 11),
    );
    const refused = answers[7];
    expect(refused?.ok === false && refused.message).toContain("input does not match greeter");
    const unknown = answers[11];
    expect(unknown?.ok === false && unknown.message).toContain(
      'no worker has published an agent named "nobody"',
    );
    const ids = answers.flatMap((a) => (a.ok ? a.value.map((v) => v.taskId) : []));
    const { rows } = await t.pool.query<{ id: string; created_by: string; actor: string }>(
      `select t.id, t.created_by, l.actor from tasks t join ledger_entries l on l.task_id = t.id
       where t.id = any($1::uuid[]) and l.kind = 'task.enqueued'`,
      [ids],
    );
    expect(rows).toHaveLength(18);
    const byId = new Map(rows.map((r) => [r.id, r]));
    answers.forEach((a, i) => {
      if (!a.ok) return;
      const row = byId.get(a.value[0]?.taskId ?? "");
      const actor = i % 2 === 0 ? alice.actor : bob.actor;
      expect(row).toMatchObject({ created_by: actor, actor });
    });
    expect((await verifyLedger(t.pool)).problems).toEqual([]);
  });
});
