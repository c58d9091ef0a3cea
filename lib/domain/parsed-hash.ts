// The ledger hash of an entry read back from the database, built for verify's millions of
// entries. It produces the same text as canonicalJson (the canonicalize package, RFC 8785) for
// what JSON.parse returns — plain objects, arrays, strings, finite numbers, booleans, null, no
// undefined members, no toJSON, no cycles — by doing what that package does for exactly those
// values (JSON.stringify for primitives, member names sorted by UTF-16 code units) minus its
// per-value checks and bookkeeping (a Set of seen objects, a lone-surrogate scan of every
// string), which cost half of verify's time. Those checks guard what is about to be written; a
// stored value that would have failed them cannot carry a matching hash. parsed-hash.test.ts
// holds it to canonicalJson and entryHash on random values.
import * as crypto from "node:crypto";
import type { HashedEntry } from "./hash";
import type { JsonValue } from "./json";

// Member names repeat across entries (every effect has "tool", "args", …): their JSON text is
// remembered, within a bound so a ledger of unique names cannot grow it without limit.
const names = new Map<string, string>();
const MAX_NAMES = 10_000;

function nameText(k: string): string {
  let t = names.get(k);
  if (t === undefined) {
    t = `${JSON.stringify(k)}:`;
    if (names.size >= MAX_NAMES) names.clear();
    names.set(k, t);
  }
  return t;
}

/** canonicalJson(value) for a value JSON.parse returned. */
export function canonicalParsed(value: JsonValue): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) {
    let out = "[";
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ",";
      out += canonicalParsed(value[i] as JsonValue);
    }
    return `${out}]`;
  }
  const keys = Object.keys(value);
  if (keys.length > 1) keys.sort();
  let out = "{";
  let first = true;
  for (const k of keys) {
    const v = value[k];
    if (v === undefined) continue;
    if (!first) out += ",";
    first = false;
    out += nameText(k) + canonicalParsed(v);
  }
  return `${out}}`;
}

// The one-shot digest (Node 20.12+) skips a Hash object per entry: a third of the hashing time.
const sha256: (text: string) => string =
  typeof crypto.hash === "function"
    ? (text) => crypto.hash("sha256", text, "hex")
    : (text) => crypto.createHash("sha256").update(text, "utf8").digest("hex");

const str = (s: string | null) => (s === null ? "null" : JSON.stringify(s));

/** entryHash(prevHash, entry) for an entry whose data JSON.parse returned. */
export function parsedEntryHash(prevHash: string, e: HashedEntry): string {
  // The envelope's members in RFC 8785 order: actor, at, data, key, kind, seq, stream, taskId.
  const text = `${prevHash}{"actor":${str(e.actor)},"at":${str(e.at)},"data":${canonicalParsed(e.data)},"key":${str(e.key)},"kind":${str(e.kind)},"seq":${JSON.stringify(e.seq)},"stream":${str(e.stream)},"taskId":${str(e.taskId)}}`;
  return sha256(text);
}
