import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { entryHash, GENESIS_HASH } from "./hash";
import { canonicalJson, type JsonValue } from "./json";
import { canonicalParsed, parsedEntryHash } from "./parsed-hash";

// What jsonb can hand back: any JSON text's parse, with full-Unicode strings and member names
// (astral characters sort by UTF-16 code units, not code points), odd numbers, deep nesting.
const text = fc.string({ unit: "grapheme", maxLength: 12 });
const number = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
  fc.constantFrom(-0, 1e21, 1e-7, 5e-324, Number.MAX_SAFE_INTEGER + 2, 0.1 + 0.2),
);
const { value } = fc.letrec<{ value: JsonValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.constant(null),
    fc.boolean(),
    number,
    text,
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(text, tie("value"), { maxKeys: 5 }),
  ),
}));
// Through JSON text, as pg returns jsonb: own "__proto__" members and -0 as JSON.parse makes them.
const parsed = value.map((v) => JSON.parse(JSON.stringify(v)) as JsonValue);

describe("canonicalParsed", () => {
  it("is canonicalJson for anything JSON.parse returns", () => {
    fc.assert(
      fc.property(parsed, (v) => {
        expect(canonicalParsed(v)).toBe(canonicalJson(v));
      }),
      { numRuns: 2000 },
    );
  });

  it("is canonicalJson on the cases that differ between orderings and escapings", () => {
    const cases = [
      JSON.parse('{"__proto__": 1, "b": [1.0, -0, 1E2, 0.10]}'),
      { "\u{1F600}": 1, "\uFFFF": 2, é: 3, e: 4, E: 5, "": 6 },
      ["\u2028\u2029", '\u0007\u001f"\\/', "\uD83D\uDE00"],
      { a: { b: { c: [null, true, false, 0, 123e-20, 1e21] } } },
      // Integer-like names: V8 lists them first, in numeric order; JCS sorts them as text.
      JSON.parse('{"b": 1, "10": 2, "9": 3, "-1": 4, "01": 5}'),
    ] as JsonValue[];
    for (const v of cases) expect(canonicalParsed(v)).toBe(canonicalJson(v));
  });
});

describe("parsedEntryHash", () => {
  it("is entryHash", () => {
    fc.assert(
      fc.property(
        fc.record({
          stream: text,
          seq: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
          at: fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
          kind: text,
          actor: text,
          taskId: fc.option(fc.uuid()),
          key: fc.option(text),
          data: parsed,
        }),
        fc.constantFrom(GENESIS_HASH, "a".repeat(64)),
        (entry, prev) => {
          expect(parsedEntryHash(prev, entry)).toBe(entryHash(prev, entry));
        },
      ),
      { numRuns: 1000 },
    );
  });
});
