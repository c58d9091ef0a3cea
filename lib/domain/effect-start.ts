// An effect's claim to act (the provider may be asked now) as the ledger records it, in either
// of its two forms: an `effect.started` entry of its own, written with the claim (every ledger
// written before the start was folded keeps these forever), or `data.effectStarted` on the
// entry that ended the claim: its result (effect.succeeded), its failure or release
// (effect.failed, effect.rate_limited, effect.reconcile_failed), or, when the claimer died
// before any of those, the effect.outcome_unknown of whoever found the claim lapsed
// (`lapsed: true`, with the dead claimer). One claim, one record; every reader of effect starts
// goes through effectStartOf, so both forms read alike.
import type { JsonValue } from "./json";
import { type EntryLike, isoOf, recordOf, stringOf } from "./loose-read";

/** The kind of the older, separate form. */
export const EFFECT_STARTED_KIND = "effect.started";
/** The key of the folded form in an entry's data. */
export const EFFECT_START_KEY = "effectStarted";

/** The kinds that end a claim, so carry it: one of them commits per claim, or none if it lapsed. */
export const CLAIM_ENDING_KINDS: ReadonlySet<string> = new Set([
  "effect.succeeded",
  "effect.failed",
  "effect.rate_limited",
  "effect.reconcile_failed",
]);

/** What the folded form holds. */
export type EffectStartData = {
  /** ISO 8601: the claim's time, not the entry's. */
  at: string;
  /** Redacted, as stored and hashed. */
  args: JsonValue;
  fingerprint: string;
  /** The provider had said it did not act, so the same key acted again. */
  retry?: true;
  /** An earlier claim's outcome was unknown, and this one acts (resent, or reconciled as not done). */
  resend?: true;
  /** The claimer died before it recorded anything: found by a later attempt. */
  lapsed?: true;
  /** A lapsed claim's worker (`worker:<id>`), not the entry's own actor. */
  actor?: string;
};

export type EffectStart = {
  /** ISO 8601: when the key was claimed to act. */
  at: string;
  args: JsonValue | null;
  fingerprint: string | null;
  retry: boolean;
  resend: boolean;
  lapsed: boolean;
  /** Who claimed it (`worker:<id>`). */
  actor: string;
};

/** The claim an entry records, in either form; null when it records none. */
export function effectStartOf(e: EntryLike): EffectStart | null {
  const data = recordOf(e.data);
  const separate = e.kind === EFFECT_STARTED_KIND;
  const source = separate ? (data ?? {}) : recordOf(data?.[EFFECT_START_KEY]);
  if (!source) return null;
  return {
    at: separate ? isoOf(e.at) : (stringOf(source.at) ?? isoOf(e.at)),
    args: source.args === undefined ? null : (source.args as JsonValue),
    fingerprint: stringOf(source.fingerprint),
    retry: source.retry === true,
    resend: source.resend === true,
    lapsed: source.lapsed === true,
    actor: stringOf(source.actor) ?? e.actor ?? "",
  };
}

/** The folded form of a claim, from what the claim knows. */
export function effectStartData(args: {
  at: Date | string;
  args: JsonValue;
  fingerprint: string;
  /** A key claimed before, claimed again to act: after `retry` (not performed) or `resend`. */
  after?: "retry" | "resend";
  lapsed?: { actor: string };
}): EffectStartData {
  return {
    at: isoOf(args.at),
    args: args.args,
    fingerprint: args.fingerprint,
    ...(args.after ? { [args.after]: true as const } : {}),
    ...(args.lapsed ? { lapsed: true as const, actor: args.lapsed.actor } : {}),
  };
}
