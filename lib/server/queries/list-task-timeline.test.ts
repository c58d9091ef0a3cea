import { describe, expect, it } from "vitest";
import { withTransaction } from "../../../db/client";
import { setUpTestDatabase } from "../../../db/testing/database";
import { testTokenViewer, testViewer } from "../../auth/testing";
import { AuthError } from "../../domain/access";
import { appendLedger, taskStream } from "../ledger/append-ledger";
import {
  listTaskTimeline,
  TASK_TIMELINE_HEAD,
  TASK_TIMELINE_PAGE,
  TASK_TIMELINE_TAIL,
  timelineSearchSchema,
} from "./list-task-timeline";
import { HIDDEN_PAYLOAD } from "./payloads";

const t = await setUpTestDatabase("task-timeline");
const ops = testViewer("ops");

async function insertTask(): Promise<string> {
  const { rows } = await t.pool.query<{ id: string }>(
    "insert into tasks (agent, input, created_by) values ('a', '{}', 't') returning id",
  );
  return rows[0]?.id ?? "";
}

async function append(taskId: string, n: number, stream = taskStream(taskId)) {
  await withTransaction(t.pool, (c) =>
    appendLedger(
      c,
      stream,
      Array.from({ length: n }, (_, i) => ({
        kind: "note.added",
        actor: "t",
        taskId,
        data: { i, html: "<b>x</b>" },
      })),
    ),
  );
}

const range = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe("listTaskTimeline", () => {
  it("is empty for a task without a stream", async () => {
    expect(await listTaskTimeline(t.db, ops, await insertTask())).toEqual({
      entries: [],
      total: 0,
      gap: null,
      window: null,
      payloadsHidden: false,
    });
  });

  it("returns every entry of a short stream in order, with its data, and nothing of others", async () => {
    const id = await insertTask();
    const other = await insertTask();
    await append(id, 3);
    await append(other, 2);
    // An entry about the task on another stream is not part of the task's story.
    await append(id, 1, "system");
    const tl = await listTaskTimeline(t.db, ops, id);
    expect(tl.total).toBe(3);
    expect(tl.gap).toBeNull();
    expect(tl.entries.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(tl.entries[1]).toMatchObject({
      kind: "note.added",
      actor: "t",
      key: null,
      data: { i: 1, html: "<b>x</b>" },
    });
    expect(tl.entries[0]?.at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  it("shows the beginning and the end of a long stream, and how much lies between", async () => {
    const id = await insertTask();
    const limit = TASK_TIMELINE_HEAD + TASK_TIMELINE_TAIL;
    await append(id, limit);
    const exact = await listTaskTimeline(t.db, ops, id);
    expect(exact.entries.map((e) => e.seq)).toEqual(range(1, limit));
    expect(exact.gap).toBeNull();

    await append(id, 7);
    const tl = await listTaskTimeline(t.db, ops, id);
    expect(tl.total).toBe(limit + 7);
    expect(tl.gap).toEqual({ afterSeq: TASK_TIMELINE_HEAD, count: 7 });
    expect(tl.entries.map((e) => e.seq)).toEqual([
      ...range(1, TASK_TIMELINE_HEAD),
      ...range(TASK_TIMELINE_HEAD + 8, limit + 7),
    ]);
  });

  it("reads any part of a stream in windows, the left-out middle included", async () => {
    const id = await insertTask();
    const total = TASK_TIMELINE_HEAD + TASK_TIMELINE_TAIL + TASK_TIMELINE_PAGE;
    await append(id, total);
    const middle = await listTaskTimeline(t.db, ops, id, { from: TASK_TIMELINE_HEAD + 1 });
    expect(middle.window).toEqual({ from: TASK_TIMELINE_HEAD + 1 });
    expect(middle.gap).toBeNull();
    expect(middle.entries.map((e) => e.seq)).toEqual(
      range(TASK_TIMELINE_HEAD + 1, TASK_TIMELINE_HEAD + TASK_TIMELINE_PAGE),
    );
    const end = await listTaskTimeline(t.db, ops, id, { from: total - 2 });
    expect(end.entries.map((e) => e.seq)).toEqual([total - 2, total - 1, total]);
    const past = await listTaskTimeline(t.db, ops, id, { from: total + 100 });
    expect(past).toMatchObject({ entries: [], total, window: { from: total + 100 } });
  });

  it("reads the window position from the address", () => {
    expect(timelineSearchSchema.parse({ from: "51" })).toEqual({ from: 51 });
    expect(timelineSearchSchema.parse({})).toEqual({});
    for (const from of ["0", "-1", "1.5", "abc", "99999999999999999"]) {
      expect(timelineSearchSchema.safeParse({ from }).success, from).toBe(false);
    }
  });
});

describe("listTaskTimeline authorization", () => {
  it("refuses without a viewer (401) and without ledger:read (403)", async () => {
    await expect(
      listTaskTimeline(t.db, null, "0b6f1f0e-6a43-4d6b-9e83-1f2b3c4d5e6f"),
    ).rejects.toMatchObject({ name: "AuthError", status: 401 });
    const denied = listTaskTimeline(
      t.db,
      testTokenViewer(["tasks:read"], "reader"),
      "0b6f1f0e-6a43-4d6b-9e83-1f2b3c4d5e6f",
    );
    await expect(denied).rejects.toBeInstanceOf(AuthError);
    await expect(denied).rejects.toMatchObject({
      status: 403,
      message: 'token "reader" may not do this (needs ledger:read)',
    });
  });

  it("hides every entry's data from a viewer without payloads:read", async () => {
    const id = await insertTask();
    await append(id, 2);
    const hidden = await listTaskTimeline(t.db, testTokenViewer(["ledger:read"]), id);
    expect(hidden.payloadsHidden).toBe(true);
    expect(hidden.entries.map((e) => [e.seq, e.kind, e.actor, e.data])).toEqual([
      [1, "note.added", "t", HIDDEN_PAYLOAD],
      [2, "note.added", "t", HIDDEN_PAYLOAD],
    ]);
    expect((await listTaskTimeline(t.db, ops, id)).entries[0]?.data).toEqual({
      i: 0,
      html: "<b>x</b>",
    });
  });
});
