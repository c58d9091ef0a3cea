// What "replay from step N" (or a resume) would do, decided from rows already read: the
// journaled steps from N that run again, for each effect already keyed at or after N whether
// the re-run returns its stored result (dedupe) or acts, and whether the two-person rule
// applies. Pure: lib/server/review reads the rows, the replay command records this same plan.
import { type CommandFailure, invalid } from "./command-result";
import type { JsonValue } from "./json";
import { type LoopReplay, planLoopReplay } from "./loop-replay";
import { type MoneyArgs, moneyOf } from "./money";

export type ReplayEffect = {
  step: number;
  tool: string;
  key: string;
  status: "succeeded" | "failed" | "started";
  /** dedupe: returns the stored result, provided the replay reaches it with the same intent. */
  outcome: "dedupe" | "act" | "outcome_unknown" | "in_flight";
  /** A step re-run before it (a model call or computation) may change its arguments. */
  mayChange: boolean;
};

export type ReplayPreview = {
  fromStep: number;
  rerun: { seq: number; kind: string; name: string }[];
  effects: ReplayEffect[];
  /** A generateText loop's turns that come from the journal and those asked again; null: none. */
  loop: LoopReplay | null;
};

export type ReplayStepInput = { seq: number; kind: string; name: string };

export type ReplayEffectInput = {
  stepSeq: number;
  tool: string;
  key: string;
  status: ReplayEffect["status"];
  /** The effect's lease is still running on the database clock (another worker is on it). */
  live: boolean;
  /** Its recorded intent and (redacted) arguments, for describing a loop's earlier proposals. */
  intent?: JsonValue;
  args?: JsonValue;
};

/** The one refusal for a replay step outside the journal (the command's and the preview's). */
export function stepOutOfRange(fromStep: number, lastStep: number): CommandFailure | null {
  return Number.isInteger(fromStep) && fromStep >= 1 && fromStep <= lastStep + 1
    ? null
    : invalid(
        `the task has ${lastStep} journaled step(s); replay can start at step 1 to ${lastStep + 1}`,
      );
}

/**
 * Whether a re-run of the step may come out differently. Tool results, sleeps and spawned
 * children come back as they were (the same intent gives the same key, so the same effect or
 * child); a model call or a computation may not.
 */
export function mayChange(step: { kind: string }): boolean {
  return step.kind !== "tool" && step.kind !== "sleep" && step.kind !== "spawn";
}

/**
 * The plan of a replay from `fromStep`. `declared`: where each money tool's amount is in its
 * arguments (the catalog's), so a loop's earlier proposals are described with their amounts.
 */
export function planReplay(
  steps: readonly ReplayStepInput[],
  effects: readonly ReplayEffectInput[],
  fromStep: number,
  declared: ReadonlyMap<string, MoneyArgs> = new Map(),
): ReplayPreview {
  const rerun = steps
    .filter((s) => s.seq >= fromStep)
    .sort((a, b) => a.seq - b.seq)
    .map((s) => ({ seq: s.seq, kind: s.kind, name: s.name }));
  const firstChanging = rerun.find(mayChange)?.seq;
  const reached = effects
    .filter((e) => e.stepSeq >= fromStep)
    .sort((a, b) => a.stepSeq - b.stepSeq);
  const planned = reached.map(
    (e): ReplayEffect => ({
      step: e.stepSeq,
      tool: e.tool,
      key: e.key,
      status: e.status,
      outcome: outcomeOf(e),
      mayChange: firstChanging !== undefined && firstChanging < e.stepSeq,
    }),
  );
  const loop = planLoopReplay(
    rerun,
    reached.map((e) => {
      const money = declared.get(e.tool);
      return {
        step: e.stepSeq,
        tool: e.tool,
        intent: e.intent ?? null,
        amount: money && e.args !== undefined ? moneyOf(e.args, money) : null,
        outcome: outcomeOf(e),
      };
    }),
  );
  return { fromStep, rerun, effects: planned, loop };
}

function outcomeOf(e: ReplayEffectInput): ReplayEffect["outcome"] {
  if (e.status === "succeeded") return "dedupe";
  if (e.status === "failed") return "act";
  return e.live ? "in_flight" : "outcome_unknown";
}

/** The review actions a two-person request can stand for. */
export type ReviewAction = "replay" | "approve";

export type ReviewEffect = ReplayEffect & {
  /** The tool moves money (catalog flag, or an approval the worker marked `money`). */
  money: boolean;
  /** The re-run will or may perform it: failed, unknown outcome, or arguments that may change. */
  acts: boolean;
};

/** What a replay or resume would do, with the tools that move money marked. */
export type ReviewPreview = Omit<ReplayPreview, "effects"> & {
  action: ReviewAction;
  effects: ReviewEffect[];
  /** False when no worker has published this agent: its tools count as not moving money. */
  catalogKnown: boolean;
  moneyTools: string[];
  /** True when a second, different reviewer must confirm; `reasons` says why. */
  twoPerson: boolean;
  reasons: string[];
};

/**
 * The plan with money marked. Two reviewers are needed when a money effect would or may act,
 * when a money tool has no effect yet (the run may reach it for the first time: steps past the
 * journal are not known in advance), or when a resume would approve a pending money approval.
 */
export function planReview(facts: {
  plan: ReplayPreview;
  action: ReviewAction;
  /** The agent's money tools, and whether the catalog knows the agent at all. */
  money: ReadonlySet<string>;
  catalogKnown: boolean;
  /** Tools with an effect before the replayed steps (kept as they are). */
  keptTools: readonly string[];
  /** Tools with a pending approval. */
  pendingTools: readonly string[];
}): ReviewPreview {
  const { plan, action, money } = facts;
  const effects = plan.effects.map((e) => ({
    ...e,
    money: money.has(e.tool),
    acts: e.outcome === "act" || e.outcome === "outcome_unknown" || e.mayChange,
  }));
  const reasons: string[] = [];
  for (const e of effects) {
    if (!e.money || !e.acts) continue;
    reasons.push(
      e.outcome === "act"
        ? `${e.tool} (step ${e.step}) moves money and will act`
        : e.outcome === "outcome_unknown"
          ? `${e.tool} (step ${e.step}) moves money and its outcome is unknown: it may be sent again`
          : `${e.tool} (step ${e.step}) moves money and may act: a step before it runs again and may change its arguments`,
    );
  }
  const reached = new Set([...facts.keptTools, ...effects.map((e) => e.tool)]);
  const moneyTools = [...money].sort();
  for (const tool of moneyTools) {
    if (!reached.has(tool)) {
      reasons.push(`${tool} moves money and the run may reach it for the first time`);
    }
  }
  if (action === "approve") {
    for (const tool of facts.pendingTools) {
      if (money.has(tool)) reasons.push(`the pending approval of ${tool} moves money`);
    }
  }
  return {
    ...plan,
    action,
    effects,
    catalogKnown: facts.catalogKnown,
    moneyTools,
    twoPerson: reasons.length > 0,
    reasons,
  };
}
