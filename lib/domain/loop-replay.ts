// What a replay does to a generateText loop (ctx.generateText journals each model turn as a
// step named "turn N"): the turns before the replayed step come from the journal, the model is
// asked again from the first turn at or after it, and each tool call it proposed from there
// deduplicates only if it proposes the same intent again. Pure: the replay plan calls it.
import type { JsonValue } from "./json";
import { formatMoney, type Money } from "./money";

export type LoopProposal = {
  step: number;
  tool: string;
  /** What the effect did, as its tool's intent says it (e.g. `{ orderId }`). */
  intent: JsonValue;
  /** The money it moved, where the tool declares its amount arguments. */
  amount: Money | null;
  outcome: "dedupe" | "act" | "outcome_unknown" | "in_flight";
};

export type LoopReplay = {
  /** The first turn the model is asked again. */
  askedFrom: number;
  /** Turns 1 to askedFrom - 1 of that loop come from the journal. */
  keptTurns: number;
  /** Effects the earlier run performed after that turn: the model may or may not propose them again. */
  proposals: LoopProposal[];
  /** The sentence a reviewer reads before confirming. */
  note: string;
};

const TURN = /^turn (\d+)$/;

/** The turn number of a journaled generateText turn, or null for any other step. */
export function turnOf(step: { kind: string; name: string }): number | null {
  const m = step.kind === "model" ? TURN.exec(step.name) : null;
  return m ? Number(m[1]) : null;
}

/**
 * The loop part of a replay from `fromStep`, or null when no generateText turn runs again.
 * `steps` are the journaled steps from `fromStep`; `effects` those keyed from it.
 */
export function planLoopReplay(
  steps: readonly { seq: number; kind: string; name: string }[],
  effects: readonly LoopProposal[],
): LoopReplay | null {
  const first = [...steps].sort((a, b) => a.seq - b.seq).find((s) => turnOf(s) !== null);
  const askedFrom = first ? turnOf(first) : null;
  if (!first || askedFrom === null) return null;
  const proposals = effects.filter((e) => e.step > first.seq).sort((a, b) => a.step - b.step);
  const loop = { askedFrom, keptTurns: askedFrom - 1, proposals };
  return { ...loop, note: loopNote(loop) };
}

export function loopNote(loop: Omit<LoopReplay, "note">): string {
  const kept =
    loop.keptTurns === 0
      ? "No turn comes from the journal"
      : loop.keptTurns === 1
        ? "Turn 1 comes from the journal"
        : `Turns 1–${loop.keptTurns} come from the journal`;
  const head = `${kept}; from turn ${loop.askedFrom} the model is asked again`;
  if (loop.proposals.length === 0) {
    return `${head}: any tool call it proposes acts for the first time.`;
  }
  const parts = loop.proposals.map(
    (p) => `the ${p.tool} it proposed before (${described(p)}) ${fate(p)}`,
  );
  return `${head}: ${parts.join("; ")}; a proposal with another intent acts, and the same intent with other arguments is a payload mismatch.`;
}

function fate(p: LoopProposal): string {
  switch (p.outcome) {
    case "dedupe":
      return "deduplicates if proposed again with the same intent";
    case "act":
      return "did not happen, so it acts if proposed again";
    case "outcome_unknown":
      return "has an unknown outcome: proposed again, it is reconciled or goes to a person";
    case "in_flight":
      return "is in flight on another worker: proposed again, the run waits for its result";
  }
}

function described(p: LoopProposal): string {
  const intent =
    p.intent !== null && typeof p.intent === "object" && !Array.isArray(p.intent)
      ? Object.entries(p.intent).map(([k, v]) => `${k} ${scalar(v)}`)
      : [scalar(p.intent)];
  return [...intent, ...(p.amount ? [formatMoney(p.amount.minor, p.amount.currency)] : [])].join(
    ", ",
  );
}

function scalar(v: JsonValue): string {
  return typeof v === "string" ? v : JSON.stringify(v);
}
