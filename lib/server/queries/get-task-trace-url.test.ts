// The task page's trace link comes from the task detail query: TRACE_URL_TEMPLATE with the
// trace id of the traceparent the task stored, and nothing for a task enqueued without one.
import { describe, expect, it } from "vitest";

// The environment is read once: the template is set before anything reads it.
process.env.TRACE_URL_TEMPLATE = "https://tempo.example.com/trace/{traceId}?from=ledger";
const { setUpTestDatabase } = await import("../../../db/testing/database");
const { testViewer } = await import("../../auth/testing");
const { getTaskDetail } = await import("./get-task-detail");

const t = await setUpTestDatabase("task_trace_url");

async function insertTask(traceparent: string | null): Promise<string> {
  const { rows } = await t.pool.query<{ id: string }>(
    `insert into tasks (agent, input, created_by, traceparent) values ('refund', '{}', 'test', $1)
     returning id`,
    [traceparent],
  );
  return rows[0]?.id ?? "";
}

describe("the task's trace URL", () => {
  it("is the template with the stored trace id, or null without a traceparent", async () => {
    const traced = await insertTask("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
    const untraced = await insertTask(null);
    const viewer = testViewer("reviewer");
    expect((await getTaskDetail(t.db, viewer, traced))?.task.traceUrl).toBe(
      "https://tempo.example.com/trace/4bf92f3577b34da6a3ce929d0e0e4736?from=ledger",
    );
    expect((await getTaskDetail(t.db, viewer, untraced))?.task.traceUrl).toBeNull();
  });
});
