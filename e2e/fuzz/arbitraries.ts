// fast-check arbitraries for server action arguments. "Poison" values are wrong for every field
// an action form has (text, number, enum, boolean, id): an object, a list of objects, objects
// nested thousands deep, or a string far past any field's length limit. A call with one poisoned
// field is malformed whatever its other fields hold, so it must be refused.
import fc from "fast-check";

/** Characters that break naive handling: NUL, lone surrogates, bidi overrides, joiners, emoji. */
export const NASTY = [
  "\u0000",
  "\ud800",
  "\udfff",
  "\u202e",
  "\u200f",
  "\u200d",
  "\ufeff",
  "\uffff",
  "\u0301",
  "👩‍👩‍👧",
  "🔥",
  "é",
  "\\",
  '"',
  "'",
  "\n",
  "$",
  "$K1",
  "$@0",
  "%00",
  "<script>",
];

const unit = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NASTY) },
  { weight: 1, arbitrary: fc.string({ unit: "grapheme", minLength: 1, maxLength: 1 }) },
  { weight: 1, arbitrary: fc.string({ unit: "binary", minLength: 1, maxLength: 1 }) },
);

export const nasty = (maxLength = 24, minLength = 0) => fc.string({ unit, minLength, maxLength });

/** Keys that trip code treating objects as dictionaries. */
export const KEY_TRAPS = ["__proto__", "constructor", "prototype", "toString", "$ACTION_ID_0"];
export const junkKey = fc.oneof(fc.constantFrom(...KEY_TRAPS), nasty(12, 1));

export const scalar = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
  nasty(),
);

/**
 * A value too big or too odd to print in a counterexample, as the recipe that makes it: a string
 * of `times` copies of `unit`, or objects (and lists) nested `depth` deep.
 */
export type Recipe =
  | { huge: string; times: number }
  | { deep: number; arrays: boolean }
  | { value: unknown };

export function materialize(recipe: Recipe): unknown {
  if ("huge" in recipe) return recipe.huge.repeat(recipe.times);
  if ("deep" in recipe) {
    // Built without recursion: {a: [{a: …}]}.
    let value: unknown = { a: null };
    for (let i = 0; i < recipe.deep; i++) value = recipe.arrays && i % 2 ? [value] : { a: value };
    return { a: value };
  }
  return recipe.value;
}

/**
 * 20 000 to 150 000 characters: past every action field's limit, and under Next's 1 MB action
 * body limit even when each character is a 6-byte JSON escape.
 */
export const hugeString: fc.Arbitrary<Recipe> = fc
  .record({
    huge: fc.constantFrom("x", "é", "🔥", "\u0000", "\ud800", "\u202e", "ab"),
    chars: fc.integer({ min: 20_000, max: 150_000 }),
  })
  .map(({ huge, chars }) => ({ huge, times: Math.ceil(chars / huge.length) }));

export const poison: fc.Arbitrary<Recipe> = fc.oneof(
  fc.dictionary(junkKey, scalar, { maxKeys: 4 }).map((value) => ({ value })),
  fc
    .array(fc.dictionary(junkKey, scalar, { maxKeys: 2 }), { minLength: 1, maxLength: 3 })
    .map((value) => ({ value })),
  // e2e/authz/calls.ts encodes arguments recursively: past ~2 000 levels the test's own stack
  // overflows before anything is sent.
  fc.record({ deep: fc.integer({ min: 1_000, max: 1_200 }), arrays: fc.boolean() }),
  hugeString,
);

/** Anything at all, for the fields next to a poisoned one. */
export const junk: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: scalar },
  { weight: 1, arbitrary: fc.array(scalar, { maxLength: 3 }) },
  { weight: 1, arbitrary: fc.dictionary(junkKey, scalar, { maxKeys: 3 }) },
);
