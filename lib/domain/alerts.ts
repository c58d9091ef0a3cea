// Alert rules and the events they match: the vocabulary the database checks, the rule schema
// every boundary (form, CLI, command) parses with, and the pure matching the evaluator runs.
import { z } from "zod";
import { formatCostUsd } from "./money";
import { DEAD_REASONS } from "./task-states";

/**
 * What a rule watches. `no_live_worker` reads the `workers` presence table (an idle fleet
 * holds no task lease to tell by) and is delivered by the web server's own delivery worker,
 * since no fleet worker is there to do it.
 */
export const ALERT_KINDS = [
  "dead_letter",
  "outcome_unknown",
  "approval_waiting",
  "no_live_worker",
  "spend_day_over",
  "spend_rate_over",
] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];

export const ALERT_DESTINATIONS = ["slack", "webhook"] as const;
export type AlertDestination = (typeof ALERT_DESTINATIONS)[number];

/** The built-in agent that delivers alerts; its own events never alert (no feedback loop). */
export const ALERT_DELIVERY_AGENT = "alert-delivery";

/** Kinds about model spend: their rules carry a threshold in money (`threshold`). */
export const SPEND_ALERT_KINDS = ["spend_day_over", "spend_rate_over"] as const;
export const isSpendAlertKind = (kind: string): kind is (typeof SPEND_ALERT_KINDS)[number] =>
  (SPEND_ALERT_KINDS as readonly string[]).includes(kind);

/** The ledger kinds the evaluator reads, per rule kind (time-based kinds read other tables). */
export const ALERT_LEDGER_KINDS = {
  dead_letter: "task.dead_lettered",
  outcome_unknown: "effect.outcome_unknown",
} as const satisfies Partial<Record<AlertKind, string>>;

const agentName = z
  .string()
  .trim()
  .regex(/^[a-z][a-z0-9-]*$/, "must be an agent name (kebab-case)")
  .max(100);

/** Only http(s): a rule must not make the worker open file:, gopher: or other schemes. */
export const alertUrlSchema = z
  .string({ message: "is required" })
  .trim()
  .max(2_000, "must be at most 2000 characters")
  .url("must be a URL")
  // zod runs this even when .url() failed, so it must not throw on a non-URL.
  .refine(
    (u) => URL.canParse(u) && /^https?:$/.test(new URL(u).protocol),
    "must be an http or https URL",
  );

const spendThreshold = z
  .number({ message: "must be a number" })
  .gt(0, "must be more than 0")
  .max(1_000_000, "must be at most 1,000,000");

function ruleSchemaWith<U extends z.ZodType>(url: U) {
  const base = {
    name: z.string({ message: "is required" }).trim().min(1, "enter a name").max(120),
    destination: z.enum(ALERT_DESTINATIONS, { message: "must be slack or webhook" }),
    url,
    enabled: z.boolean().default(true),
  };
  return z.discriminatedUnion(
    "kind",
    [
      z.object({
        ...base,
        kind: z.literal("dead_letter"),
        /** Only this agent's dead letters; absent: every agent's. */
        agent: agentName.optional(),
        /** Only this reason; absent: every reason. */
        reason: z.enum(DEAD_REASONS).optional(),
      }),
      z.object({ ...base, kind: z.literal("outcome_unknown"), agent: agentName.optional() }),
      z.object({
        ...base,
        kind: z.literal("approval_waiting"),
        agent: agentName.optional(),
        olderThanMinutes: z
          .number({ message: "must be a number" })
          .int("must be a whole number")
          .min(1, "must be at least 1")
          .max(10_080, "must be at most a week (10080)"),
      }),
      z.object({
        ...base,
        /** Today's (UTC) model spend, of one agent or of all, passed `threshold`. */
        kind: z.literal("spend_day_over"),
        agent: agentName.optional(),
        threshold: spendThreshold,
      }),
      z.object({
        ...base,
        /** Model spend in the last hour, of one agent or of all, passed `threshold`. */
        kind: z.literal("spend_rate_over"),
        agent: agentName.optional(),
        threshold: spendThreshold,
      }),
      z.object({
        ...base,
        kind: z.literal("no_live_worker"),
        /** Fires once no worker has been seen for this long (a heartbeat is a third of a lease). */
        silentForSeconds: z
          .number({ message: "must be a number" })
          .int("must be a whole number")
          .min(10, "must be at least 10")
          .max(86_400, "must be at most a day (86400)")
          .default(60),
      }),
    ],
    { message: `kind must be one of ${ALERT_KINDS.join(", ")}` },
  );
}

export const alertRuleSchema = ruleSchemaWith(alertUrlSchema);
/** A change to a rule: without a URL the rule keeps its own (the dashboard never shows it). */
export const alertRuleChangeSchema = ruleSchemaWith(alertUrlSchema.optional());
export type AlertRuleChange = z.input<typeof alertRuleChangeSchema>;
export type AlertRuleInput = z.input<typeof alertRuleSchema>;
export type AlertRuleSpec = z.output<typeof alertRuleSchema>;

/** A rule as stored and matched (no URL or secret: matching never needs them). */
export type AlertRuleFilter = {
  id: string;
  kind: AlertKind;
  agent: string | null;
  reason: string | null;
  olderThanMinutes: number | null;
  silentForSeconds: number | null;
  /** spend_day_over / spend_rate_over: the amount of money the spend must pass. */
  threshold: number | null;
  enabled: boolean;
  createdAt: Date;
};

/** Something a person should hear about. `id` is stable: the same event always has the same id. */
export type AlertEvent = {
  /**
   * "ledger:<entry id>", "approval:<approval id>", or "no_live_worker:<epoch ms of the newest
   * last_seen_at, or never>": one id per outage, whichever pass sees it.
   */
  id: string;
  kind: AlertKind;
  at: Date;
  taskId: string | null;
  agent: string | null;
  /** Dead-letter reason, or the outcome-unknown action the runtime took. */
  reason: string | null;
  /** One line for people (Slack text, the webhook's summary). */
  summary: string;
  /** Spend kinds: the money spent (today, or in the last hour); absent for other kinds. */
  amount?: number;
};

/**
 * Does this rule want this event? A ledger event older than the rule is history, not news;
 * an approval still waiting is news to a new rule too. The delivery agent's own events never
 * match: an alert about a failed alert would feed on itself when the destination is down.
 */
export function matchesRule(rule: AlertRuleFilter, event: AlertEvent, now: Date): boolean {
  if (!rule.enabled || rule.kind !== event.kind) return false;
  if (event.agent === ALERT_DELIVERY_AGENT) return false;
  if (event.kind === "no_live_worker") {
    // The evaluator builds one event per rule threshold; `at` is the newest sighting (or epoch).
    const silentMs = now.getTime() - event.at.getTime();
    return rule.silentForSeconds !== null && silentMs >= rule.silentForSeconds * 1_000;
  }
  if (event.kind === "spend_day_over" || event.kind === "spend_rate_over") {
    // One event per agent and one for all (agent null): a rule reads exactly its own.
    return (
      rule.agent === event.agent &&
      rule.threshold !== null &&
      event.amount !== undefined &&
      event.amount > rule.threshold
    );
  }
  if (event.kind === "approval_waiting") {
    const waitedMs = now.getTime() - event.at.getTime();
    if (rule.olderThanMinutes === null || waitedMs < rule.olderThanMinutes * 60_000) return false;
  } else if (event.at.getTime() < rule.createdAt.getTime()) {
    return false;
  }
  if (rule.agent !== null && rule.agent !== event.agent) return false;
  if (rule.kind === "dead_letter" && rule.reason !== null && rule.reason !== event.reason) {
    return false;
  }
  return true;
}

/** The enqueue key of the one delivery task per (rule, event). */
export function alertEnqueueKey(ruleId: string, eventId: string): string {
  return `alert:${ruleId}:${eventId}`;
}

/** The host only: what the dashboard shows of a destination (a Slack URL's path is its secret). */
export function destinationHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "(invalid URL)";
  }
}

export function describeEvent(event: Omit<AlertEvent, "summary" | "id">): string {
  const task = event.taskId ? ` task ${event.taskId}` : "";
  const agent = event.agent ? ` (${event.agent})` : "";
  switch (event.kind) {
    case "dead_letter":
      return `Dead letter:${task}${agent} stopped with reason ${event.reason ?? "unknown"}; a reviewer must triage it.`;
    case "outcome_unknown":
      return `Unknown outcome:${task}${agent} started an effect and never recorded its result (runtime: ${event.reason ?? "unknown"}).`;
    case "approval_waiting":
      return `Approval waiting:${task}${agent} has waited for a person since ${event.at.toISOString()}.`;
    case "spend_day_over":
      return `Spend today: ${event.agent ? `agent ${event.agent}` : "all agents"} spent ${formatCostUsd(event.amount ?? 0)} of model calls today (UTC), as of ${event.at.toISOString()}.`;
    case "spend_rate_over":
      return `Spend rate: ${event.agent ? `agent ${event.agent}` : "all agents"} spent ${formatCostUsd(event.amount ?? 0)} of model calls in the hour to ${event.at.toISOString()}.`;
    case "no_live_worker":
      return event.at.getTime() === 0
        ? "No live worker: no worker has ever reported in; no task will run."
        : `No live worker: the last worker was seen at ${event.at.toISOString()}; no task will run until one is back.`;
  }
}
