import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson, JsonValueError, toJsonValue } from "./json";

describe("canonicalJson", () => {
  it("sorts keys and drops whitespace (RFC 8785)", () => {
    expect(canonicalJson({ b: 1, a: [true, null, "x"], c: { z: 1, y: 2 } })).toBe(
      '{"a":[true,null,"x"],"b":1,"c":{"y":2,"z":1}}',
    );
  });

  it("formats numbers as ECMAScript does", () => {
    expect(canonicalJson([1.0, 1e21, 0.1 + 0.2, -0])).toBe("[1,1e+21,0.30000000000000004,0]");
  });

  it("is independent of key insertion order", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (obj) => {
        const reversed = Object.fromEntries(Object.entries(obj).reverse());
        expect(canonicalJson(reversed)).toBe(canonicalJson(obj));
      }),
    );
  });
});

describe("toJsonValue", () => {
  it("rejects what jsonb cannot store, naming where", () => {
    expect(() => toJsonValue({ a: { b: "x\u0000y" } }, "data")).toThrow(
      /data\.a\.b: contains U\+0000/,
    );
    expect(() => toJsonValue({ a: ["\ud800"] }, "data")).toThrow(
      /data\.a\[0\]: contains a lone surrogate/,
    );
    expect(() => toJsonValue({ n: Number.NaN }, "data")).toThrow(JsonValueError);
    expect(() => toJsonValue({ f: () => 1 }, "data")).toThrow(/function is not JSON/);
  });

  it("rejects values nested too deep", () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100; i++) deep = [deep];
    expect(() => toJsonValue(deep)).toThrow(/nested deeper/);
  });

  it("drops undefined members and turns dates into strings", () => {
    expect(toJsonValue({ a: undefined, d: new Date("2026-01-02T03:04:05.006Z") })).toEqual({
      d: "2026-01-02T03:04:05.006Z",
    });
  });
});
