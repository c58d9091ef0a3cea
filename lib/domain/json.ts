// JSON values as the ledger stores them: what goes into jsonb must come back byte-identical
// under canonicalization, or a chain would break on its own.
import canonicalize from "canonicalize";

export type JsonValue =
  | null
  | boolean
  | number
  | string
  | JsonValue[]
  | { [key: string]: JsonValue };

export class JsonValueError extends Error {
  override name = "JsonValueError";
}

const MAX_DEPTH = 64;

function hasLoneSurrogate(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = value.charCodeAt(i + 1);
      if (!(next >= 0xdc00 && next <= 0xdfff)) return true;
      i++;
    } else if (code >= 0xdc00 && code <= 0xdfff) {
      return true;
    }
  }
  return false;
}

function checkString(value: string, path: string): void {
  // PostgreSQL's jsonb cannot hold U+0000, and lone surrogates are not valid Unicode text.
  if (value.includes("\u0000")) throw new JsonValueError(`${path}: contains U+0000`);
  if (hasLoneSurrogate(value)) throw new JsonValueError(`${path}: contains a lone surrogate`);
}

function check(value: unknown, path: string, depth: number): void {
  if (depth > MAX_DEPTH) throw new JsonValueError(`${path}: nested deeper than ${MAX_DEPTH}`);
  if (value === null || typeof value === "boolean") return;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new JsonValueError(`${path}: ${value} is not a JSON number`);
    return;
  }
  if (typeof value === "string") {
    checkString(value, path);
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      check(item, `${path}[${i}]`, depth + 1);
    });
    return;
  }
  if (typeof value === "object") {
    if (value instanceof Date) return;
    for (const [key, item] of Object.entries(value)) {
      checkString(key, `${path} key ${JSON.stringify(key)}`);
      if (item !== undefined) check(item, `${path}.${key}`, depth + 1);
    }
    return;
  }
  if (value === undefined) return;
  throw new JsonValueError(`${path}: a ${typeof value} is not JSON`);
}

/**
 * Why `value` cannot be stored (NUL, a lone surrogate, nesting deeper than 64, a non-JSON
 * value), naming the first part; null when it can. Checks without recursing past the limit, so
 * a hostile depth cannot overflow the stack.
 */
export function unstorable(value: unknown, label: string): string | null {
  try {
    check(value, label, 0);
    return null;
  } catch (error) {
    if (error instanceof JsonValueError) return error.message;
    throw error;
  }
}

/**
 * Returns `value` as the JSON it will be stored as (undefined members dropped, dates as ISO
 * strings), or throws a JsonValueError naming the first part that cannot be stored.
 */
export function toJsonValue(value: unknown, label = "value"): JsonValue {
  check(value, label, 0);
  const text = JSON.stringify(value);
  if (text === undefined) throw new JsonValueError(`${label}: is not JSON`);
  return JSON.parse(text) as JsonValue;
}

/** RFC 8785 (JCS) canonical JSON. */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new JsonValueError("value has no JSON representation");
  return text;
}
