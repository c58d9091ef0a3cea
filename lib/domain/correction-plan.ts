// What correcting a task's input would do to its recorded effects, before anything runs. A
// key is sha256([taskId, tool, intent]) and the intent comes from the tool's arguments, which
// the agent builds from its input: an intent holding a value the correction changes will most
// likely hold the new value instead, so its key changes and the effect acts anew; an intent
// holding none of them keeps its key (deduplicated if it succeeded). Only the re-run knows for
// sure (a model may word things differently), so these are predictions and say so. Pure.

import { deriveEffectKey } from "./hash";
import { canonicalJson, type JsonValue } from "./json";
import { changedRows, type DiffRow, diffJson } from "./json-diff";

export type CorrectionEffectInput = {
  step: number;
  tool: string;
  key: string;
  status: "succeeded" | "failed" | "started";
  /** The intent recorded with the effect (null when the viewer may not see it). */
  intent: JsonValue | null;
};

export type CorrectionEffect = {
  step: number;
  tool: string;
  key: string;
  /** The key the re-run is expected to derive; equal to `key` when the intent keeps. */
  newKey: string;
  keyChanges: boolean;
  /** The intent's paths that hold a value the correction changes. */
  because: string[];
  /** "dedupe": the same key already succeeded and returns its stored result. */
  outcome: "dedupe" | "act";
};

export type CorrectionPlan = {
  /** The input's leaves that differ, before → after. */
  changes: DiffRow[];
  effects: CorrectionEffect[];
};

/** Scalars of the old input that the correction replaces, by their canonical JSON. */
function replacements(changes: readonly DiffRow[]): Map<string, JsonValue> {
  const out = new Map<string, JsonValue>();
  for (const c of changes) {
    if (c.change !== "changed" || c.before === null || c.after === null) continue;
    const before: JsonValue = JSON.parse(c.before);
    const after: JsonValue = JSON.parse(c.after);
    if (typeof before === "object" && before !== null) continue;
    out.set(canonicalJson(before), after);
  }
  return out;
}

/** The intent with every replaced value swapped in, and the paths where that happened. */
function swap(
  value: JsonValue,
  with_: ReadonlyMap<string, JsonValue>,
  path: string,
  hits: string[],
): JsonValue {
  if (Array.isArray(value)) return value.map((v, i) => swap(v, with_, `${path}[${i}]`, hits));
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, swap(v, with_, path ? `${path}.${k}` : k, hits)]),
    );
  }
  const replaced = with_.get(canonicalJson(value));
  if (replaced === undefined) return value;
  hits.push(path);
  return replaced;
}

export function planCorrection(
  taskId: string,
  before: JsonValue,
  after: JsonValue,
  effects: readonly CorrectionEffectInput[],
): CorrectionPlan {
  const changes = changedRows(diffJson(before, after));
  const with_ = replacements(changes);
  return {
    changes,
    effects: effects.map((e) => {
      const because: string[] = [];
      const newIntent = e.intent === null ? null : swap(e.intent, with_, "", because);
      const keyChanges = because.length > 0;
      const newKey =
        keyChanges && newIntent !== null ? deriveEffectKey(taskId, e.tool, newIntent) : e.key;
      return {
        step: e.step,
        tool: e.tool,
        key: e.key,
        newKey,
        keyChanges,
        because,
        outcome: !keyChanges && e.status === "succeeded" ? "dedupe" : "act",
      };
    }),
  };
}
