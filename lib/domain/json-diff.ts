// Where two JSON values differ, leaf by leaf: the payload-mismatch view (the approved payload
// beside the one the re-run asked for) and a reviewer's input correction (before → after) both
// show the same rows. Pure; the screens render the rows as escaped text.
import { canonicalJson, type JsonValue } from "./json";

export type DiffRow = {
  /** Where the values sit, as `a.b[2].c`; "" for the whole value. */
  path: string;
  change: "same" | "changed" | "added" | "removed";
  /** Canonical JSON of the value on each side; null where the side has none. */
  before: string | null;
  after: string | null;
};

const isObject = (v: JsonValue | undefined): v is { [key: string]: JsonValue } =>
  typeof v === "object" && v !== null && !Array.isArray(v);

function join(path: string, key: string | number): string {
  if (typeof key === "number") return `${path}[${key}]`;
  return /^[A-Za-z_$][\w$]*$/.test(key)
    ? path === ""
      ? key
      : `${path}.${key}`
    : `${path}[${JSON.stringify(key)}]`;
}

/**
 * Every leaf of `before` and `after` with how it changed, in key order (objects by sorted key,
 * arrays by index). Objects and arrays are walked into; anything else (a scalar, or an object
 * on one side and something else on the other) is one row.
 */
export function diffJson(before: JsonValue | undefined, after: JsonValue | undefined): DiffRow[] {
  const rows: DiffRow[] = [];
  walk(before, after, "", rows);
  return rows;
}

function walk(
  a: JsonValue | undefined,
  b: JsonValue | undefined,
  path: string,
  rows: DiffRow[],
): void {
  if (isObject(a) && isObject(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    if (keys.length === 0) rows.push(leaf(a, b, path));
    for (const k of keys) walk(a[k], b[k], join(path, k), rows);
    return;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    const n = Math.max(a.length, b.length);
    if (n === 0) rows.push(leaf(a, b, path));
    for (let i = 0; i < n; i++) walk(a[i], b[i], join(path, i), rows);
    return;
  }
  rows.push(leaf(a, b, path));
}

function leaf(a: JsonValue | undefined, b: JsonValue | undefined, path: string): DiffRow {
  const before = a === undefined ? null : canonicalJson(a);
  const after = b === undefined ? null : canonicalJson(b);
  const change =
    before === null ? "added" : after === null ? "removed" : before === after ? "same" : "changed";
  return { path, change, before, after };
}

/** Only the rows that differ. */
export function changedRows(rows: readonly DiffRow[]): DiffRow[] {
  return rows.filter((r) => r.change !== "same");
}
