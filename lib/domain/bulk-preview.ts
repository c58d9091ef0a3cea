// The aggregated preview of a bulk replay or resume: what the per-task previews
// (lib/domain/replay-plan planReview) add up to over the frozen set, for the confirmation
// dialog: how many effects would act, be deduplicated, have an unknown outcome, move money
// (and how much, summed per currency), and whether the set needs a second reviewer (any
// member does).
import type { JsonValue } from "./json";
import { addTotals, type MoneyArgs, type MoneyTotals, moneyOf, sumMoney } from "./money";
import type { ReviewPreview } from "./replay-plan";

/** One task's preview with the money its acting effects would move. */
export type MemberPreview = ReviewPreview & { amounts: MoneyTotals };

/**
 * The money a task's preview would move: each money effect that will or may act, its amount
 * read from its recorded arguments where its tool declares which they are (`args` by effect
 * key, `declared` by tool); an effect whose amount cannot be read counts as unknown.
 */
export function withAmounts(
  preview: ReviewPreview,
  args: ReadonlyMap<string, JsonValue>,
  declared: ReadonlyMap<string, MoneyArgs>,
): MemberPreview {
  const amounts = sumMoney(
    preview.effects
      .filter((e) => e.money && e.acts)
      .map((e) => {
        const how = declared.get(e.tool);
        const recorded = args.get(e.key);
        return how && recorded !== undefined ? moneyOf(recorded, how) : null;
      }),
  );
  return { ...preview, amounts };
}

export type BulkPreview = {
  tasks: number;
  /** Members the preview could not be made for (e.g. no step of that name): refused per task. */
  skipped: number;
  effects: {
    act: number;
    dedupe: number;
    unknown: number;
    inFlight: number;
    /** Money effects that would or may act. */
    money: number;
  };
  /** What the money effects would move, summed per currency; `unknown` did not say how much. */
  amounts: MoneyTotals;
  /** Tasks whose own preview needs a second reviewer. */
  twoPersonTasks: number;
  twoPerson: boolean;
  /** The distinct reasons, with how many tasks each applies to, most frequent first. */
  reasons: { reason: string; tasks: number }[];
};

/** Numbers in a reason ("refund (step 2)…") are per task; the aggregate counts the wording. */
const reasonShape = (reason: string) => reason.replace(/\(step \d+\)/g, "(step N)");

export function aggregatePreviews(
  previews: readonly (ReviewPreview | MemberPreview | null)[],
): BulkPreview {
  const effects = { act: 0, dedupe: 0, unknown: 0, inFlight: 0, money: 0 };
  const reasons = new Map<string, number>();
  let twoPersonTasks = 0;
  let skipped = 0;
  for (const p of previews) {
    if (!p) {
      skipped++;
      continue;
    }
    for (const e of p.effects) {
      if (e.outcome === "act") effects.act++;
      else if (e.outcome === "dedupe") effects.dedupe++;
      else if (e.outcome === "outcome_unknown") effects.unknown++;
      else effects.inFlight++;
      if (e.money && e.acts) effects.money++;
    }
    if (p.twoPerson) twoPersonTasks++;
    for (const r of new Set(p.reasons.map(reasonShape))) {
      reasons.set(r, (reasons.get(r) ?? 0) + 1);
    }
  }
  return {
    tasks: previews.length,
    skipped,
    effects,
    amounts: addTotals(
      previews.flatMap((p) => (p ? ["amounts" in p ? p.amounts : moneyOfUnread(p)] : [])),
    ),
    twoPersonTasks,
    twoPerson: twoPersonTasks > 0,
    reasons: [...reasons]
      .map(([reason, tasks]) => ({ reason, tasks }))
      .sort((a, b) => b.tasks - a.tasks || a.reason.localeCompare(b.reason)),
  };
}

/** A preview read without amounts: each money effect that acts is of unknown amount. */
function moneyOfUnread(p: ReviewPreview): MoneyTotals {
  return { totals: [], unknown: p.effects.filter((e) => e.money && e.acts).length };
}
