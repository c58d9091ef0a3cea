import { describe, expect, it } from "vitest";
import { setUpTestDatabase } from "../../../db/testing/database";
import { testTokenViewer, testViewer } from "../../auth/testing";
import { AuthError } from "../../domain/access";
import { listTasks } from "./list-tasks";

const t = await setUpTestDatabase("tasks-list");
const ops = testViewer("ops");

async function readAll(search: { status?: "queued" | "dead" | "running" }, pageSize: number) {
  const ids: string[] = [];
  let before: { createdAt: string; id: string } | undefined;
  for (let guard = 0; guard < 50; guard++) {
    const page = await listTasks(t.db, ops, { ...search, before }, pageSize);
    ids.push(...page.tasks.map((task) => task.id));
    if (page.olderBefore === null) break;
    const [at, id] = page.olderBefore.split("_");
    if (at === undefined || id === undefined) throw new Error(`bad cursor ${page.olderBefore}`);
    before = { createdAt: at, id };
  }
  return ids;
}

describe("listTasks", () => {
  it("pages through tasks that share a creation time, keeping microseconds", async () => {
    // One statement, one now(): 17 tasks with the same created_at, then 3 a few microseconds apart.
    await t.pool.query(
      `insert into tasks (agent, input, created_by) select 'a', jsonb_build_object('n', n), 't' from generate_series(1, 17) n`,
    );
    for (let i = 0; i < 3; i++) {
      await t.pool.query(
        "insert into tasks (agent, input, status, dead_reason, last_error, created_by) values ('b', '{}', 'dead', 'exhausted', $1, 't')",
        [JSON.stringify({ message: `boom ${i}` })],
      );
    }
    const { rows } = await t.pool.query<{ id: string }>(
      "select id from tasks order by created_at desc, id desc",
    );
    const expected = rows.map((r) => r.id);

    expect(await readAll({}, 4)).toEqual(expected);
    expect(await readAll({}, 20)).toEqual(expected);
    expect(await readAll({ status: "dead" }, 2)).toHaveLength(3);
    expect(await readAll({ status: "queued" }, 5)).toHaveLength(17);
  });

  it("pages through running tasks newest first (they are in no index by status and creation)", async () => {
    await t.pool.query(
      `insert into tasks (agent, input, status, lease_owner, lease_expires_at, attempts, created_by)
       select 'r', jsonb_build_object('n', n), 'running', 'worker:w', now() + interval '1 minute', 1, 't'
         from generate_series(1, 7) n`,
    );
    const { rows } = await t.pool.query<{ id: string }>(
      "select id from tasks where status = 'running' order by created_at desc, id desc",
    );
    expect(rows).toHaveLength(7);
    expect(await readAll({ status: "running" }, 3)).toEqual(rows.map((r) => r.id));
  });

  it("returns the cursor with microsecond precision and the last error message", async () => {
    const page = await listTasks(t.db, ops, { status: "dead" }, 1);
    expect(page.olderBefore).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z_[0-9a-f-]{36}$/);
    expect(page.tasks[0]).toMatchObject({
      status: "dead",
      deadReason: "exhausted",
      lastError: "boom 2",
    });
  });
});

describe("listTasks authorization", () => {
  it("refuses without a viewer (401) and without tasks:read (403)", async () => {
    await expect(listTasks(t.db, null, {})).rejects.toMatchObject({
      name: "AuthError",
      status: 401,
    });
    const denied = listTasks(t.db, testTokenViewer(["ledger:read"], "reader"), {});
    await expect(denied).rejects.toBeInstanceOf(AuthError);
    await expect(denied).rejects.toMatchObject({
      status: 403,
      message: 'token "reader" may not do this (needs tasks:read)',
    });
  });
});
