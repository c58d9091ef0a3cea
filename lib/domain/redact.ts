// Sensitive fields are replaced before anything reaches the ledger, so the hash covers the
// redacted form and the secret is never stored.
import type { JsonValue } from "./json";

export const REDACTED = "[redacted]";

/**
 * Replaces the value at each dotted path (`card.number`; `*` matches any key or array index)
 * with REDACTED. Paths that do not exist are ignored. Returns a new value.
 */
export function redact(value: JsonValue, paths: readonly string[]): JsonValue {
  if (paths.length === 0) return value;
  let out = value;
  for (const path of paths) out = redactPath(out, path.split("."));
  return out;
}

function redactPath(value: JsonValue, segments: readonly string[]): JsonValue {
  const [head, ...rest] = segments;
  if (head === undefined) return REDACTED;
  if (Array.isArray(value)) {
    return value.map((item, i) =>
      head === "*" || head === String(i) ? redactPath(item, rest) : item,
    );
  }
  if (value !== null && typeof value === "object") {
    const copy: { [key: string]: JsonValue } = {};
    for (const [key, item] of Object.entries(value)) {
      copy[key] = head === "*" || head === key ? redactPath(item, rest) : item;
    }
    return copy;
  }
  return value;
}

/**
 * Whether any value at these paths is REDACTED: arguments rebuilt from a redacted journal copy
 * (a replayed model decision) carry the placeholder where the secret was.
 */
export function holdsRedacted(value: JsonValue, paths: readonly string[]): boolean {
  return paths.some((path) => redactedAt(value, path.split(".")));
}

function redactedAt(value: JsonValue, segments: readonly string[]): boolean {
  const [head, ...rest] = segments;
  if (head === undefined) return value === REDACTED;
  if (Array.isArray(value)) {
    return value.some((item, i) => (head === "*" || head === String(i)) && redactedAt(item, rest));
  }
  if (value !== null && typeof value === "object") {
    return Object.entries(value).some(
      ([key, item]) => (head === "*" || head === key) && redactedAt(item, rest),
    );
  }
  return false;
}
