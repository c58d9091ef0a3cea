import { describe, expect, it } from "vitest";
import { changedRows, diffJson } from "./json-diff";

describe("diffJson", () => {
  it("walks objects by sorted key and says how each leaf changed", () => {
    const rows = diffJson(
      { to: "a@example.com", amountCents: 900, meta: { order: "o1" }, gone: true },
      { to: "a@example.com", amountCents: 1200, meta: { order: "o1", note: "x" } },
    );
    expect(rows).toEqual([
      { path: "amountCents", change: "changed", before: "900", after: "1200" },
      { path: "gone", change: "removed", before: "true", after: null },
      { path: "meta.note", change: "added", before: null, after: '"x"' },
      { path: "meta.order", change: "same", before: '"o1"', after: '"o1"' },
      { path: "to", change: "same", before: '"a@example.com"', after: '"a@example.com"' },
    ]);
  });

  it("walks arrays by index and quotes keys that are not identifiers", () => {
    expect(changedRows(diffJson({ "line items": [1, 2] }, { "line items": [1, 3, 4] }))).toEqual([
      { path: '["line items"][1]', change: "changed", before: "2", after: "3" },
      { path: '["line items"][2]', change: "added", before: null, after: "4" },
    ]);
  });

  it("a value that changes shape is one row, compared as canonical JSON", () => {
    expect(diffJson({ a: { x: 1 } }, { a: [1] })).toEqual([
      { path: "a", change: "changed", before: '{"x":1}', after: "[1]" },
    ]);
    expect(diffJson({ b: 1, a: 2 }, { a: 2, b: 1 }).every((r) => r.change === "same")).toBe(true);
  });

  it("keeps markup as text: the screen escapes it, the diff never interprets it", () => {
    const [row] = diffJson({ s: "<b>hi</b>" }, { s: "<script>x</script>" });
    expect(row).toEqual({
      path: "s",
      change: "changed",
      before: '"<b>hi</b>"',
      after: '"<script>x</script>"',
    });
  });

  it("the whole value when either side is a scalar or missing", () => {
    expect(diffJson(1, 1)).toEqual([{ path: "", change: "same", before: "1", after: "1" }]);
    expect(diffJson(undefined, { a: 1 })).toEqual([
      { path: "", change: "added", before: null, after: '{"a":1}' },
    ]);
    expect(diffJson({}, {})).toEqual([{ path: "", change: "same", before: "{}", after: "{}" }]);
  });
});
