// One line on what a ledger entry says, for the /ledger rows and the CSV export: the fields a
// person scans for, per kind (the tool and recipient or provider ids of an effect, who decided
// a review and why, the agent and status of a task). Plain text; the screen renders it escaped.
import { z } from "zod";
import { EFFECT_START_KEY } from "./effect-start";
import type { JsonValue } from "./json";
import { changedRows, diffJson } from "./json-diff";
import {
  describeModelPriceChange,
  describePrice,
  modelPriceChangeSchema,
  modelPricingSchema,
} from "./model-price-form";
import { describePolicyChange } from "./policy-text";
import { describeRateLimit, describeToolLimitChange, toolLimitChangeSchema } from "./rate-limit";
import { policyFieldChanges } from "./retry-policy";
import { describeSpendCapChange, spendCapChangeSchema } from "./spend-cap-form";

type Obj = { [key: string]: JsonValue };

const isObj = (v: JsonValue | undefined): v is Obj =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** Long enough for a whole Message-ID (<64 hex digits@domain>): ids are what people search for. */
function text(v: JsonValue | undefined, max = 160): string | null {
  if (v === undefined || v === null) return null;
  const s = typeof v === "string" ? v : JSON.stringify(v);
  const line = s.replace(/\s+/g, " ").trim();
  if (line === "") return null;
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** "name: value" for each field that has a value, joined by " · ". */
function fields(pairs: [string, JsonValue | undefined][]): string {
  return pairs
    .map(([name, v]) => {
      const t = text(v);
      return t === null ? null : name === "" ? t : `${name}: ${t}`;
    })
    .filter((p): p is string => p !== null)
    .join(" · ");
}

const actorName = (actor: string) => actor.replace(/^user:/, "");

/** Recipients, provider ids and other identifying values of an effect's args/intent/result. */
function effectIds(d: Obj): [string, JsonValue | undefined][] {
  // The args are the claim's: on an effect.started entry, or carried by the entry that ended it.
  const carried = d[EFFECT_START_KEY];
  const claim = isObj(carried) ? carried : d;
  const args = isObj(claim.args) ? claim.args : {};
  const result = isObj(d.result) ? d.result : {};
  return [
    ["to", args.to ?? result.to],
    ["Message-ID", result.messageId],
    ["refund", result.refundId],
    ["order", args.orderId],
    ["invoice", args.invoiceId],
    ["amount", args.amount],
  ];
}

export function summarizeEntry(entry: {
  kind: string;
  actor: string;
  data: JsonValue | null;
}): string {
  const { kind } = entry;
  if (!isObj(entry.data)) {
    // Hidden payloads are a marker string; a primitive data is shown as it is.
    return text(entry.data, 120) ?? "";
  }
  const d = entry.data;
  const [family] = kind.split(".");
  switch (family) {
    case "effect":
      if (kind === "effect.rate_limited") return rateLimitedSummary(d);
      return fields([
        ["", d.tool],
        ...effectIds(d),
        ["performed", d.performed],
        ["error", isObj(d.error) ? d.error.message : d.error],
        ["step", d.step],
        ["attempt", d.attempt],
      ]);
    case "event":
      // What a task waits for and what reached it; who sent an event.
      return fields([
        ["", d.name],
        ["match", isObj(d.match) && Object.keys(d.match).length > 0 ? d.match : undefined],
        ["until", d.deadline],
        ["payload", d.payload],
        ["event", d.event],
        ["kept", d.kept],
        ["to", Array.isArray(d.deliveredTo) ? `${d.deliveredTo.length} task(s)` : undefined],
        ["by", kind === "event.waiting" ? undefined : actorName(entry.actor)],
        ["step", d.step],
      ]);
    case "review":
      return fields([
        ["by", actorName(entry.actor)],
        ["action", d.action],
        ["correction", isObj(d.correction) ? correctionText(d.correction) : undefined],
        ["from", d.from],
        ["why", d.reason ?? d.why ?? d.note],
        ["step", d.fromStep],
        ["request", d.requestId],
      ]);
    case "task":
      if (kind === "task.input_corrected") return correctionSummary(entry.actor, d);
      return fields([
        ["agent", d.agent],
        ["from", d.from],
        ["status", d.status ?? d.to],
        ["reason", d.reason],
        ["why", d.why],
        ["error", isObj(d.error) ? d.error.message : d.error],
        [
          "schedule",
          isObj(d.schedule) ? `${d.schedule.name} @ ${d.schedule.occurrence}` : undefined,
        ],
      ]);
    case "schedule": {
      // A person's change records before and after; a tick's note records the schedule itself.
      const s = isObj(d.after) ? d.after : isObj(d.before) ? d.before : d;
      return fields([
        ["by", actorName(entry.actor)],
        ["", `${s.agent}/${s.name}`],
        ["cron", s.cron],
        ["skipped", d.skipped],
        ["reason", d.reason],
      ]);
    }
    case "attempt":
    case "retry":
      return fields([
        ["attempt", d.attempt],
        ["agent", d.agent],
        ["error", isObj(d.error) ? d.error.message : d.error],
        ["runs at", d.runAt],
      ]);
    case "step":
      return fields([
        ["step", d.step],
        ["", d.kind],
        ["", d.name],
      ]);
    case "model":
      return fields([["model", d.model], ["step", d.step], ...modelCallPairs(d)]);
    case "outcome":
      return fields([
        ["by", actorName(entry.actor)],
        ["happened", d.happened],
        ["result", d.result],
      ]);
    case "policy":
      return [
        fields([
          ["by", actorName(entry.actor)],
          ["scope", d.scope],
        ]),
        kind === "policy.changed" ? policyText(d) : null,
      ]
        .filter((p) => p !== null && p !== "")
        .join(" · ");
    case "replay":
      return fields([
        ["by", actorName(entry.actor)],
        ["from step", d.fromStep],
      ]);
    case "ledger":
      return ledgerSummary(kind, d);
    default:
      // Any other kind: its first few scalar fields.
      return fields(
        Object.entries(d)
          .filter(([, v]) => v === null || typeof v !== "object")
          .slice(0, 4),
      );
  }
}

/** How many changed fields a summary names before it says how many more there are. */
const FIELDS_NAMED = 3;
/** A value in a before → after pair: enough to recognise it, short enough for three pairs. */
const VALUE_MAX = 40;

function listed(parts: string[]): string | null {
  if (parts.length === 0) return null;
  const more = parts.length - FIELDS_NAMED;
  return [...parts.slice(0, FIELDS_NAMED), ...(more > 0 ? [`${more} more`] : [])].join(", ");
}

/**
 * `currency "US dollars" → "usd"` for each changed field of an input correction, values as
 * canonical JSON cut short. Read from the entry's own before and after (what it hashed, as it
 * was redacted), never from anywhere else.
 */
function correctionText(d: Obj): string | null {
  if (!("before" in d) || !("after" in d)) return null;
  const side = (v: string | null) => (v === null ? "(none)" : (text(v, VALUE_MAX) ?? ""));
  return listed(
    changedRows(diffJson(d.before, d.after)).map(
      (r) =>
        `${r.path === "" ? "(whole input)" : text(r.path, VALUE_MAX)} ${side(r.before)} → ${side(r.after)}`,
    ),
  );
}

/**
 * A correction names both people: who proposed it and, when money needed a second reviewer,
 * who confirmed it (the entry's actor). Entries before issue 19 have only `twoPerson`.
 */
function correctionSummary(actor: string, d: Obj): string {
  const two = isObj(d.twoPerson) ? d.twoPerson : {};
  const proposed = d.proposedBy ?? two.requestedBy ?? actor;
  const confirmed = d.confirmedBy ?? two.confirmedBy ?? null;
  const name = (v: JsonValue | undefined) =>
    typeof v === "string" ? actorName(v) : (v ?? undefined);
  // Each pair is already cut short; the list is not cut again, so every named field shows.
  return [
    correctionText(d),
    fields([
      [confirmed === null ? "by" : "proposed by", name(proposed)],
      ["confirmed by", name(confirmed)],
      ["from step", d.fromStep],
      ["why", d.note],
    ]),
  ]
    .filter((p) => p !== null && p !== "")
    .join(" · ");
}

/**
 * Who served a model call, its tokens, its cost and the price used with where it came from, as
 * model.called and the journaled response record them: "provider: openai.chat · tokens: in 1200
 * (300 cached), out 80 (20 reasoning) · cost: 0.0012 · price: $0.15 in · $0.6 out per Mtok (default)".
 */
export function modelCallCost(d: JsonValue): string {
  return isObj(d) ? fields(modelCallPairs(d)) : "";
}

function modelCallPairs(d: Obj): [string, JsonValue | undefined][] {
  return [
    ["provider", d.provider],
    ["tokens", isObj(d.usage) ? tokensText(d.usage) : undefined],
    ["cost", d.costUsd ?? d.cost],
    ["price", d.priced === false ? "unpriced (counted 0)" : priceText(d.price)],
  ];
}

/** "in 1200 (300 cached) · out 80 (20 reasoning)": a model call's usage. */
function tokensText(u: Obj): string {
  const part = (n: JsonValue | undefined, of: JsonValue | undefined, what: string) =>
    typeof of === "number" && of > 0 ? `${n} (${of} ${what})` : `${n}`;
  return `in ${part(u.inputTokens, u.cachedInputTokens, "cached")}, out ${part(u.outputTokens, u.reasoningTokens, "reasoning")}`;
}

/** The price a model call was charged and who set it ("$2.5 in · $10 out per Mtok (dashboard)"). */
function priceText(p: JsonValue | undefined): string | undefined {
  const price = modelPricingSchema.extend({ source: z.string() }).safeParse(p);
  return price.success ? `${describePrice(price.data)} (${price.data.source})` : undefined;
}

/** `Max attempts 6 (agent code) → 5` for each field a policy change set differently. */
function policyText(d: Obj): string | null {
  const tool = toolLimitChangeSchema.safeParse(d);
  if (tool.success) return describeToolLimitChange(tool.data);
  const budget = spendCapChangeSchema.safeParse(d);
  if (budget.success) return describeSpendCapChange(budget.data);
  const price = modelPriceChangeSchema.safeParse(d);
  if (price.success) return describeModelPriceChange(price.data);
  const changes = policyFieldChanges(d.before, d.after, d.inForce);
  if (changes === null) return null;
  if (changes.length === 0) return "no field changed";
  const scope = typeof d.scope === "string" ? d.scope : null;
  return listed(changes.map((c) => describePolicyChange(scope, c)));
}

/** Checkpoints and archives: what they cover, never their lists of heads. */
function ledgerSummary(kind: string, d: Obj): string {
  if (kind === "ledger.checkpoint_heads") {
    return `heads of streams ${text(d.first, 60) ?? "?"} … ${text(d.last, 60) ?? "?"} (${text(d.count) ?? "?"})`;
  }
  if (kind === "ledger.checkpoint") {
    const st = isObj(d.statement) ? d.statement : {};
    const streams = st.streams ?? (Array.isArray(d.streams) ? d.streams.length : undefined);
    return fields([
      ["streams", streams],
      ["chunks", Array.isArray(d.chunks) ? d.chunks.length : undefined],
      ["", d.signature === undefined ? "unsigned" : "signed"],
      ["digest", typeof d.digest === "string" ? `${d.digest.slice(0, 12)}…` : undefined],
    ]);
  }
  if (kind === "ledger.archived") {
    return fields([
      ["archive", d.archiveId],
      ["streams", d.streams],
      ["entries", d.entries],
      ["closed before", d.before],
      [
        "statement",
        typeof d.statementDigest === "string" ? `${d.statementDigest.slice(0, 12)}…` : undefined,
      ],
    ]);
  }
  if (kind === "ledger.detached") {
    return fields([
      ["month", d.month],
      ["streams", d.streams],
      ["entries removed", d.entries],
      ["archives", Array.isArray(d.archives) ? d.archives.length : undefined],
    ]);
  }
  return fields(
    Object.entries(d)
      .filter(([, v]) => v === null || typeof v !== "object")
      .slice(0, 4),
  );
}

/** effect.rate_limited: who held the call back, for how long, and where the task waited. */
function rateLimitedSummary(d: Obj): string {
  const tool = typeof d.tool === "string" ? d.tool : "the tool";
  const n = (v: JsonValue | undefined) => (typeof v === "number" ? v : 0);
  let what: string;
  if (d.source === "provider") {
    what = `the provider answered 429 (${n(d.count)} for this effect): back in the queue for ${n(d.retryAfterMs)} ms`;
  } else {
    const limit = describeRateLimit({
      limit: n(d.limit),
      periodMs: n(d.periodMs),
      keyed: d.bucketKey !== undefined,
    });
    const wait = d.handedBack === true ? "back in the queue for" : "waited";
    what = `${wait} ${n(d.waitMs)} ms for ${tool}'s rate limit (${limit})`;
  }
  return fields([
    ["", tool],
    ["", what],
    ["key", d.bucketKey],
    ["step", d.step],
    ["attempt", d.attempt],
  ]);
}
