// A task command's transaction against an archived stream (issue 23), on a real database: the
// guard trigger's LA001 becomes a conflict that names the archive, with nothing kept, for any
// path that reaches the stream past the status rules; other database errors still throw.
import { beforeAll, describe, expect, it } from "vitest";
import { setUpTestDatabase } from "../../../db/testing/database";
import { appendLedger, taskStream } from "../ledger/append-ledger";
import { archiveClosedTasks, closedTask } from "../ledger/archive-testing";
import { taskTransaction } from "./task-guard";

const t = await setUpTestDatabase("task_guard_archived");

let old = { id: "", key: "" };
let archiveId = "";

beforeAll(async () => {
  old = await closedTask(t.pool, "succeeded", "2025-12-01T00:00:00Z");
  ({ archiveId } = await archiveClosedTasks(t.pool, new Date("2026-01-01T00:00:00Z")));
});

describe("taskTransaction on an archived task", () => {
  it("answers the database's refusal as a conflict naming the archive, and keeps nothing", async () => {
    const result = await taskTransaction(t.pool, async (client) => {
      await client.query("update tasks set version = version + 1 where id = $1", [old.id]);
      await appendLedger(client, taskStream(old.id), {
        kind: "review.note",
        actor: "rita@example.com",
        taskId: old.id,
        data: { note: "late" },
      });
      return { ok: true, value: null };
    });
    expect(result).toEqual({
      ok: false,
      code: "conflict",
      message: `This task is archived (archive ${archiveId}) and can no longer change`,
    });
    const { rows } = await t.pool.query<{ version: number }>(
      "select version from tasks where id = $1",
      [old.id],
    );
    expect(rows[0]?.version).toBe(1);
  });

  it("still throws any other database error", async () => {
    await expect(
      taskTransaction(t.pool, async (client) => {
        await client.query("select 1 / 0");
        return { ok: true, value: null };
      }),
    ).rejects.toMatchObject({ code: "22012" });
  });
});
