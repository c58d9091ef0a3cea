// The task page's part of events, on a task a worker really parked: the Events card lists the
// wait (name, match, deadline), the callout says it waits holding nothing, and "Send event" is
// offered only to a viewer with events:send; once the event came, the card says so.
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { TaskCallout } from "../../components/tasks/task-callout";
import { sendableWait, TaskWaits } from "../../components/tasks/task-waits";
import { setUpTestDatabase } from "../../db/testing/database";
import { testViewer } from "../../lib/auth/testing";
import { defineAgent, defineTool } from "../../lib/sdk/define";
import { sendEvent } from "../../lib/sdk/send-event";
import { getTaskDetail } from "../../lib/server/queries/get-task-detail";
import { listTasks } from "../../lib/server/queries/list-tasks";
import { readTaskWaits } from "../../lib/server/queries/task-waits";
import { explainWhy } from "../../lib/server/queries/why";
import { whyQuerySchema } from "../../lib/server/queries/why-schema";
import { runtimeTestKit } from "./test-support";

const t = await setUpTestDatabase("events_screen");
const kit = runtimeTestKit(t.pool);

const signer = defineAgent({
  name: "doc-signer",
  input: z.object({ doc: z.string() }),
  tools: {},
  run: async (ctx, input) => ({
    got: await ctx.waitForEvent("doc.signed", { match: { doc: input.doc }, timeoutMs: 3_600_000 }),
  }),
});

const html = (node: React.ReactNode) => renderToStaticMarkup(node).replaceAll("<!-- -->", "");

describe("a waiting task's page", () => {
  it("shows the wait, offers Send event to events:send only, then shows the event", async () => {
    const id = await kit.enqueue(signer.name, { doc: "d-9" });
    expect((await kit.runOneAttempt("w1", [signer]))?.outcome).toBe("waiting");

    const forOps = await readTaskWaits(t.pool, testViewer("ops"), id);
    const forReviewer = await readTaskWaits(t.pool, testViewer("reviewer"), id);
    expect(forOps.canSend).toBe(false);
    expect(forReviewer.canSend).toBe(true);
    expect(forReviewer.waits).toEqual([
      expect.objectContaining({
        step: 1,
        name: "doc.signed",
        match: { doc: "d-9" },
        status: "waiting",
      }),
    ]);
    expect(forReviewer.waits[0]?.deadline).not.toBeNull();
    const card = html(TaskWaits({ waits: forReviewer.waits }));
    expect(card).toContain("doc.signed");
    expect(card).toContain("{&quot;doc&quot;:&quot;d-9&quot;}");
    expect(sendableWait({ ...forReviewer, taskStatus: "waiting" })?.name).toBe("doc.signed");
    expect(sendableWait({ ...forOps, taskStatus: "waiting" })).toBeNull();

    const listed = await listTasks(t.db, testViewer("ops"), { status: "waiting" });
    expect(listed.tasks.map((x) => [x.id, x.waitingFor])).toEqual([
      [id, { name: "doc.signed", match: { doc: "d-9" }, deadline: forOps.waits[0]?.deadline }],
    ]);

    const detail = await getTaskDetail(t.db, testViewer("ops"), id);
    if (!detail) throw new Error("no task");
    expect(detail.task.status).toBe("waiting");
    const callout = html(TaskCallout({ task: detail.task, pendingApproval: undefined }));
    expect(callout).toContain("Waiting for an event");
    expect(callout).toContain("the wait times out");

    await sendEvent(t.pool, {
      name: "doc.signed",
      payload: { doc: "d-9" },
      actor: "user:ada@example.com",
    });
    const after = await readTaskWaits(t.pool, testViewer("reviewer"), id);
    expect(after.waits[0]?.status).toBe("delivered");
    expect(html(TaskWaits({ waits: after.waits }))).toContain("got its event");
    expect(sendableWait({ ...after, taskStatus: "queued" })).toBeNull();
  });

  it("/why shows the attempt that waited for an event before the effect", async () => {
    const file = defineTool({
      name: "file_doc",
      input: z.object({ doc: z.string() }),
      intent: (a) => ({ doc: a.doc }),
      execute: async (a) => ({ filed: a.doc }),
    });
    const filer = defineAgent({
      name: "doc-filer",
      input: z.object({ doc: z.string() }),
      tools: { file_doc: file },
      run: async (ctx, input) => {
        await ctx.waitForEvent("doc.approved", { match: { doc: input.doc } });
        return ctx.tool("file_doc", { doc: input.doc });
      },
    });
    const id = await kit.enqueue(filer.name, { doc: "d-10" });
    expect((await kit.runOneAttempt("w1", [filer]))?.outcome).toBe("waiting");
    await sendEvent(t.pool, { name: "doc.approved", payload: { doc: "d-10" } });
    expect((await kit.runOneAttempt("w1", [filer]))?.outcome).toBe("succeeded");
    const why = await explainWhy(t.db, testViewer("ops"), whyQuerySchema.parse({ taskId: id }));
    expect(why.effects[0]?.attempts.map((a) => a.outcome)).toEqual([
      "waiting_for_event",
      "succeeded",
    ]);
  });
});
