import { describe, expect, it } from "vitest";
import { ledgerSearchSchema } from "./ledger-search";
import { taskSearchSchema } from "./list-tasks";
import { parseSearchParams } from "./parse-search-params";

describe("parseSearchParams", () => {
  it("reads valid ledger input and ignores empty and unknown fields", () => {
    expect(
      parseSearchParams(ledgerSearchSchema, { limit: "42", kind: "task.enqueued", x: "1" }),
    ).toEqual({
      ok: true,
      data: { limit: 42, kind: ["task.enqueued"] },
    });
    expect(parseSearchParams(ledgerSearchSchema, { kind: "", cursor: undefined })).toEqual({
      ok: true,
      data: {},
    });
  });

  it.each([["abc!"], ["0"], ["MTcwMDAwMDAwMDAwMC4w"], ["x".repeat(65)]])(
    "rejects cursor=%s with a sentence that names the field",
    (cursor) => {
      const parsed = parseSearchParams(ledgerSearchSchema, { cursor });
      expect(parsed.ok).toBe(false);
      if (!parsed.ok) expect(parsed.errors.join(" ")).toMatch(/^"cursor" /);
    },
  );

  it.each([["Task.Enqueued"], ["task..x"], ["drop table"], ["a".repeat(101)]])(
    "rejects kind=%s",
    (kind) => {
      const parsed = parseSearchParams(ledgerSearchSchema, { kind });
      expect(parsed.ok).toBe(false);
    },
  );

  it("rejects a field given twice", () => {
    expect(parseSearchParams(ledgerSearchSchema, { agent: ["a", "b"] })).toEqual({
      ok: false,
      errors: ['"agent" appears 2 times in the address; give it once.'],
    });
  });

  it("reads a task cursor to the microsecond and rejects impossible times", () => {
    const id = "0b6f1f0e-6a43-4d6b-9e83-1f2b3c4d5e6f";
    expect(
      parseSearchParams(taskSearchSchema, {
        status: "dead",
        before: `2025-11-29T13:58:00.123456Z_${id}`,
      }),
    ).toEqual({
      ok: true,
      data: { status: "dead", before: { createdAt: "2025-11-29T13:58:00.123456Z", id } },
    });
    for (const before of [
      `2025-02-30T00:00:00.000000Z_${id}`,
      `2025-13-01T00:00:00.000000Z_${id}`,
      `2025-01-01T24:00:00.000000Z_${id}`,
      `0000-01-01T00:00:00.000000Z_${id}`,
      `2025-01-01T00:00:00.123Z_${id}`,
      "2025-01-01T00:00:00.000000Z_not-a-uuid",
    ]) {
      expect(parseSearchParams(taskSearchSchema, { before }).ok, before).toBe(false);
    }
    expect(parseSearchParams(taskSearchSchema, { status: "asleep" }).ok).toBe(false);
  });
});
