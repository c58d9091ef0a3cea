// A filter's identity: the same filter keys the form the same way whatever order the address
// wrote it in, and a different one remounts it.
import { describe, expect, it } from "vitest";
import { filterKey, filterValues } from "./filter-values";

describe("filterValues", () => {
  it("keeps the named, set fields, trimmed", () => {
    expect(
      filterValues(
        { reason: "timeout", agent: "  refund ", tool: "", before: "x", fingerprint: undefined },
        ["reason", "agent", "tool", "fingerprint"],
      ),
    ).toEqual({ reason: "timeout", agent: "refund" });
  });

  it("leaves out a field the address repeats (the page explains it)", () => {
    expect(filterValues({ status: ["dead", "queued"] }, ["status"])).toEqual({});
  });
});

describe("filterKey", () => {
  it("is the same for the same filter in any order, and skips empty fields", () => {
    expect(filterKey({ b: "2", a: "1" })).toBe(filterKey({ a: "1", b: "2", c: "" }));
    expect(filterKey({ a: "1", c: undefined })).toBe("a=1");
  });

  it("differs when a value differs", () => {
    expect(filterKey({ status: "dead" })).not.toBe(filterKey({ status: "queued" }));
    expect(filterKey({})).toBe("");
  });

  it("cannot be confused by values that look like other fields", () => {
    expect(filterKey({ q: "a&b=c" })).not.toBe(filterKey({ q: "a", b: "c" }));
  });
});
