// The loader's entry hash: the same bytes as lib/domain/hash.ts entryHash (RFC 8785 canonical
// JSON, sha256 over prev_hash ‖ canonical(entry)), built faster for ten million entries. The
// scale data reuses objects across entries (a task's tool arguments sit in its input, every
// model call and the effect), so each object's canonical text is computed once (a WeakMap on
// the object; the shape never mutates what it has pushed) and the entry's envelope is joined
// from strings in JCS key order instead of being canonicalized afresh. The data's canonical
// text is also what the loader sends for the jsonb column, so no second JSON.stringify.
// scale.test.ts checks it against entryHash; `agent-ledger verify` checks every loaded entry.
import { createHash } from "node:crypto";
import type { HashedEntry } from "../../lib/domain/hash";
import type { JsonValue } from "../../lib/domain/json";

const memo = new WeakMap<object, string>();

/** RFC 8785 canonical JSON of loader data (plain JSON values, no undefined members). */
export function canonical(value: JsonValue): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  const known = memo.get(value);
  if (known !== undefined) return known;
  let text: string;
  if (Array.isArray(value)) {
    text = `[${value.map(canonical).join(",")}]`;
  } else {
    // Default sort is by UTF-16 code units, as JCS orders member names.
    const keys = Object.keys(value).sort();
    const parts: string[] = [];
    for (const k of keys) {
      const v = value[k];
      if (v !== undefined) parts.push(`${JSON.stringify(k)}:${canonical(v)}`);
    }
    text = `{${parts.join(",")}}`;
  }
  memo.set(value, text);
  return text;
}

const str = (s: string | null) => (s === null ? "null" : JSON.stringify(s));

/** entryHash(prevHash, entry), with the data's canonical text given (see `canonical`). */
export function fastEntryHash(prevHash: string, e: HashedEntry, dataText: string): string {
  // Members in JCS order: actor, at, data, key, kind, seq, stream, taskId.
  const text = `${prevHash}{"actor":${str(e.actor)},"at":${str(e.at)},"data":${dataText},"key":${str(e.key)},"kind":${str(e.kind)},"seq":${e.seq},"stream":${str(e.stream)},"taskId":${str(e.taskId)}}`;
  return createHash("sha256").update(text, "utf8").digest("hex");
}
