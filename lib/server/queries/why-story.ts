// "Why?"'s story told from the entries read for it: the model decision that chose an effect,
// the task's attempts, and who reviewed it, as the answer's DTOs.
import { z } from "zod";
import { ATTEMPT_STARTED_KIND, attemptStartOf } from "../../domain/attempt-start";
import { canonicalJson, type JsonValue } from "../../domain/json";
import { type BulkRefDto, bulkIdOf } from "./bulk-refs";
import { payload } from "./payloads";
import type { WhyEffect } from "./why-schema";

export const ATTEMPT_KINDS = [
  "attempt.started",
  "task.succeeded",
  "attempt.failed",
  "worker.lost",
  "task.requeued",
  "approval.requested",
  "event.waiting",
  "children.waiting",
  "retry.scheduled",
  "task.dead_lettered",
];
export const REVIEW_KINDS = [
  "review.first_approved",
  "review.approved",
  "review.requested",
  "review.withdrawn",
  "review.rejected",
  "replay.requested",
  "outcome.resolved",
  "task.cancelled",
];

const iso = (d: Date) => d.toISOString();

export type EventRow = {
  id: number;
  seq: number;
  at: Date;
  kind: string;
  actor: string;
  key: string | null;
  data: JsonValue;
};

const modelCalledSchema = z.object({
  step: z.number().int(),
  model: z.string().nullable().catch(null),
  system: z.string().nullable().catch(null),
  prompt: z.string().nullable().catch(null),
  text: z.string().nullable().catch(null),
  toolsOffered: z.array(z.string()).catch([]),
  toolCalls: z.array(z.object({ toolName: z.string(), args: z.json() })).catch([]),
  usage: z.object({ inputTokens: z.number(), outputTokens: z.number() }).nullable().catch(null),
  cost: z.number().nullable().catch(null),
});

export function toDecision(
  entry: EventRow | undefined,
  effect: { tool: string; args: JsonValue },
  visible: boolean,
): WhyEffect["decision"] {
  const parsed = entry ? modelCalledSchema.safeParse(entry.data) : null;
  if (!entry || !parsed?.success) return null;
  const d = parsed.data;
  // Compared before hiding: both sides are redacted by the same tool's sensitive paths.
  const sameArgs = (args: JsonValue) =>
    visible && canonicalJson(args) === canonicalJson(effect.args);
  let index = d.toolCalls.findIndex((c) => c.toolName === effect.tool && sameArgs(c.args));
  if (index < 0) index = d.toolCalls.findIndex((c) => c.toolName === effect.tool);
  const chosen = d.toolCalls[index];
  return {
    step: d.step,
    ledgerEntryId: entry.id,
    at: iso(entry.at),
    actor: entry.actor,
    model: d.model,
    system: payload(visible, d.system),
    prompt: payload(visible, d.prompt),
    text: payload(visible, d.text),
    toolsOffered: d.toolsOffered,
    toolCalls: payload(visible, d.toolCalls),
    chosenCall: chosen
      ? { index, toolName: chosen.toolName, args: payload(visible, chosen.args) }
      : null,
    usage: d.usage,
    cost: d.cost,
  };
}

export function toAttempts(rows: readonly EventRow[]): WhyEffect["attempts"] {
  const attempts: WhyEffect["attempts"] = [];
  const ends: Record<string, WhyEffect["attempts"][number]["outcome"]> = {
    "task.succeeded": "succeeded",
    "attempt.failed": "failed",
    "worker.lost": "lost",
    "task.requeued": "requeued",
    "approval.requested": "awaiting_approval",
    "event.waiting": "waiting_for_event",
    "children.waiting": "waiting_for_children",
  };
  for (const e of rows) {
    const d = asRecord(e.data);
    // Its own attempt.started entry, or folded into the attempt's first entry (attempt-start.ts).
    const start = attemptStartOf(e);
    const last = attempts.at(-1);
    if (
      start &&
      !(last?.attempt === start.attempt && last?.startedAt === iso(new Date(start.at)))
    ) {
      attempts.push({
        attempt: start.attempt ?? attempts.length + 1,
        worker: start.actor,
        startedAt: iso(new Date(start.at)),
        endedAt: null,
        outcome: "running",
        error: null,
        followedBy: null,
        retryAt: null,
        deadReason: null,
      });
    }
    if (e.kind === ATTEMPT_STARTED_KIND) continue;
    const open = attempts.findLast((a) => a.outcome === "running");
    // A budget wait is a requeue that names the budget (worker/runtime/spend-cap.ts).
    const outcome =
      e.kind === "task.requeued" && d.budget !== undefined ? "waiting_for_budget" : ends[e.kind];
    if (outcome && open) {
      open.outcome = outcome;
      open.endedAt = iso(e.at);
      open.error = d.error ?? null;
    }
    const latest = attempts.at(-1);
    if (e.kind === "retry.scheduled" && latest) {
      latest.followedBy = "retry";
      latest.retryAt = stringOr(d.runAt);
    }
    if (e.kind === "task.dead_lettered" && latest) {
      latest.followedBy = "dead";
      latest.deadReason = stringOr(d.reason);
    }
  }
  return attempts;
}

export function toReviews(
  rows: readonly EventRow[],
  bulks: ReadonlyMap<string, BulkRefDto>,
): WhyEffect["reviews"] {
  return rows.flatMap((e): WhyEffect["reviews"] => {
    if (!REVIEW_KINDS.includes(e.kind)) return [];
    const d = asRecord(e.data);
    const listed = (value: JsonValue | undefined) =>
      Array.isArray(value)
        ? value.flatMap((item) => {
            const k = asRecord(item).key;
            return typeof k === "string" ? [k] : [];
          })
        : [];
    const action = ((): WhyEffect["reviews"][number]["action"] => {
      switch (e.kind) {
        case "review.first_approved":
          return "first_approval";
        case "review.approved":
          return d.from === "dead" ? "resumed" : "approved";
        case "review.requested":
          return "second_review_requested";
        case "review.withdrawn":
          return "withdrawn";
        case "review.rejected":
          return "rejected";
        case "replay.requested":
          return "replayed";
        case "outcome.resolved":
          return d.happened === true ? "resolved_happened" : "resolved_not_happened";
        default:
          return "cancelled";
      }
    })();
    const twoPerson = asRecord(d.twoPerson);
    return [
      {
        ledgerEntryId: e.id,
        kind: e.kind,
        action,
        actor: e.actor,
        at: iso(e.at),
        note: stringOr(d.note) ?? stringOr(d.reason) ?? stringOr(d.why),
        fromStep: numberOr(d.fromStep),
        requestedBy: stringOr(twoPerson.requestedBy) ?? stringOr(d.requestedBy),
        effectKeys: e.key ? [e.key] : [...listed(d.approvals), ...listed(d.effects)],
        bulk: bulks.get(bulkIdOf(e.data) ?? "") ?? null,
      },
    ];
  });
}

export function asRecord(value: JsonValue | undefined): Record<string, JsonValue> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? value : {};
}
export const numberOr = (value: JsonValue | undefined) =>
  typeof value === "number" ? value : null;
export const stringOr = (value: JsonValue | undefined) =>
  typeof value === "string" ? value : null;
