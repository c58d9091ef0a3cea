// An archived task (issue 23) on the task page's and "Why?"'s DTOs, against a real database:
// the archive's id and the freeze time, read from the stream's head row; null for a task whose
// stream is not archived. The archive is written by archiveLedger, as the CLI does.
import { beforeAll, describe, expect, it } from "vitest";
import { setUpTestDatabase } from "../../../db/testing/database";
import { testViewer } from "../../auth/testing";
import { archiveClosedTasks, closedTask } from "../ledger/archive-testing";
import { getTaskDetail } from "./get-task-detail";
import { explainWhy, whyQuerySchema } from "./why";

const t = await setUpTestDatabase("archived_task");
const ops = testViewer("ops");

let old = { id: "", key: "" };
let recent = { id: "", key: "" };
let archive = { archiveId: "", at: "" };

beforeAll(async () => {
  old = await closedTask(t.pool, "succeeded", "2025-12-01T00:00:00Z");
  recent = await closedTask(t.pool, "succeeded", "2026-02-01T00:00:00Z");
  archive = await archiveClosedTasks(t.pool, new Date("2026-01-01T00:00:00Z"));
});

describe("an archived task", () => {
  it("the task detail names its archive and when the stream was frozen", async () => {
    expect(archive.archiveId).toMatch(/^[0-9a-f-]{36}$/);
    const d = await getTaskDetail(t.db, ops, old.id);
    expect(d?.task.archived).toEqual({
      archiveId: archive.archiveId,
      at: archive.at,
      source: "database",
      unavailable: null,
    });
    // Phase 1 keeps the entries: the page still shows the whole stream.
    expect(d?.timeline.total).toBe(2);
  });

  it("a task whose stream is not archived says null", async () => {
    expect((await getTaskDetail(t.db, ops, recent.id))?.task.archived).toBeNull();
  });

  it("Why? says so for each effect of the archived task, and null for the other", async () => {
    const byTask = await explainWhy(t.db, ops, whyQuerySchema.parse({ taskId: old.id }));
    expect(byTask.effects.map((e) => [e.effect.key, e.task.archived])).toEqual([
      [
        old.key,
        { archiveId: archive.archiveId, at: archive.at, source: "database", unavailable: null },
      ],
    ]);
    const both = await explainWhy(t.db, ops, whyQuerySchema.parse({ recipient: "a@example.com" }));
    const archivedOf = new Map(both.effects.map((e) => [e.task.id, e.task.archived]));
    expect(archivedOf.get(old.id)?.archiveId).toBe(archive.archiveId);
    expect(archivedOf.get(recent.id)).toBeNull();
  });
});
