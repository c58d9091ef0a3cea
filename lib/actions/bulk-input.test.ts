// The bulk actions parse a task's id and version as the single-task review actions do, and
// their own fields (reason, step name) as free text a reviewer may leave blank.
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { issueFields } from "../domain/zod-issues";
import { bulkPreviewInput, bulkRequestInput } from "./bulk-input";

const TASK = "6f1c2a4e-8b3d-4c5e-9f60-7a8b9c0d1e2f";
const BULK = "0b6a3c1d-2e4f-4a5b-8c7d-9e0f1a2b3c4d";
const AS_OF = "2026-12-01T20:00:00.000Z";

function fieldsOf(schema: z.ZodType, input: unknown): Record<string, string> {
  const parsed = schema.safeParse(input);
  if (parsed.success) throw new Error(`expected ${JSON.stringify(input)} to be refused`);
  return issueFields(parsed.error);
}

const rows = (tasks: unknown[]) => ({ kind: "ids", tasks });

describe("a bulk selection of rows", () => {
  it("takes a task id as the review actions do: trimmed and lower-cased", () => {
    const parsed = bulkPreviewInput.parse({
      action: "resume",
      selection: rows([{ taskId: `  ${TASK.toUpperCase()} `, version: "3" }]),
    });
    expect(parsed.selection).toEqual(rows([{ taskId: TASK, version: 3 }]));
  });

  it("names the row and the field that is wrong, with the review actions' messages", () => {
    expect(
      fieldsOf(bulkPreviewInput, {
        action: "resume",
        selection: rows([
          { taskId: "not-a-task", version: 1 },
          { taskId: TASK, version: 1.5 },
          { taskId: TASK, version: 0 },
        ]),
      }),
    ).toEqual({
      "selection.tasks.0.taskId": "must be a task id (a UUID)",
      "selection.tasks.1.version": "must be a whole number",
      "selection.tasks.2.version": "must be at least 1",
    });
  });

  it("refuses an empty or oversized set", () => {
    expect(fieldsOf(bulkPreviewInput, { action: "resume", selection: rows([]) })).toEqual({
      "selection.tasks": "choose at least one task",
    });
    const many = Array.from({ length: 1001 }, () => ({ taskId: TASK, version: 1 }));
    expect(fieldsOf(bulkPreviewInput, { action: "resume", selection: rows(many) })).toEqual({
      "selection.tasks": "choose at most 1000 tasks, or select all matching the filter",
    });
  });
});

describe("the step name a bulk replay starts from", () => {
  const preview = (stepName?: unknown) =>
    bulkPreviewInput.parse({
      action: "replay",
      selection: rows([{ taskId: TASK, version: 1 }]),
      stepName,
    }).stepName;

  it("is null (from step 1) when absent, null or blank", () => {
    expect(preview()).toBeNull();
    expect(preview(null)).toBeNull();
    expect(preview("")).toBeNull();
    expect(preview("   ")).toBeNull();
  });

  it("is trimmed, and at most 200 characters", () => {
    expect(preview("  send_email ")).toBe("send_email");
    expect(
      fieldsOf(bulkPreviewInput, {
        action: "replay",
        selection: rows([{ taskId: TASK, version: 1 }]),
        stepName: "s".repeat(201),
      }),
    ).toEqual({ stepName: "must be at most 200 characters" });
  });
});

describe("a bulk request", () => {
  const request = (extra: Record<string, unknown>) => ({
    bulkId: BULK,
    action: "reject",
    selection: rows([{ taskId: TASK, version: 2 }]),
    asOf: AS_OF,
    ...extra,
  });

  it("carries the preview's fields, its key, a trimmed reason and the instant it opened", () => {
    expect(bulkRequestInput.parse(request({ reason: " duplicate sends " }))).toEqual({
      bulkId: BULK,
      action: "reject",
      selection: rows([{ taskId: TASK, version: 2 }]),
      stepName: null,
      reason: "duplicate sends",
      asOf: AS_OF,
    });
  });

  it("treats a blank reason as none (the command asks for one on reject)", () => {
    expect(bulkRequestInput.parse(request({ reason: "  " })).reason).toBeUndefined();
  });

  it("says what is wrong with each of its own fields", () => {
    expect(
      fieldsOf(
        bulkRequestInput,
        request({ bulkId: "twice", action: "delete", reason: "r".repeat(1001), asOf: "now" }),
      ),
    ).toEqual({
      bulkId: "must be a UUID",
      action: "must be one of: resume, reject, replay, cancel",
      reason: "must be at most 1000 characters",
      asOf: "must be the instant the dialog opened",
    });
  });
});
