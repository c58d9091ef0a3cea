// The dead-letter filter: which dead tasks a reviewer is looking at (reason, error fingerprint,
// agent, tool, age) as the URL spells it, and the one SQL condition that selects them. The
// filtered list reads with it and a bulk action's "all N matching this filter" freezes with it,
// so the set a reviewer confirms is exactly the list they saw (bounded by the dialog's asOf).
import { type SQL, sql } from "drizzle-orm";
import { z } from "zod";
import { tasks } from "../../../db/schema";
import { ALERT_DELIVERY_AGENT } from "../../domain/alerts";
import { pagePositionSchema } from "../../domain/page-position";
import { DEAD_REASONS } from "../../domain/task-states";

/** Age bands on the database clock: how long the task has been dead. */
export const DEAD_AGES = {
  lt1h: { label: "Less than an hour", sql: sql`> now() - interval '1 hour'` },
  lt24h: { label: "Less than a day", sql: sql`> now() - interval '24 hours'` },
  gt24h: { label: "More than a day", sql: sql`<= now() - interval '24 hours'` },
  gt7d: { label: "More than a week", sql: sql`<= now() - interval '7 days'` },
} as const;
export type DeadAge = keyof typeof DEAD_AGES;
const AGE_NAMES = Object.keys(DEAD_AGES) as [DeadAge, ...DeadAge[]];

/** A page position: (dead since, id) of the last row shown. */
const cursorSchema = pagePositionSchema(
  "is not a page position from this screen; use the links below the table.",
);

const name = (what: string) =>
  z
    .string()
    .trim()
    .min(1, `must name ${what}.`)
    .max(200, "must be at most 200 characters.")
    .optional();

/** What narrows the dead letters: each field optional, all must hold. */
export const deadLetterFilterSchema = z.object({
  reason: z.enum(DEAD_REASONS, { error: `must be one of: ${DEAD_REASONS.join(", ")}.` }).optional(),
  fingerprint: z.string().max(400, "must be at most 400 characters.").optional(),
  agent: name("an agent"),
  tool: name("a tool"),
  age: z.enum(AGE_NAMES, { error: `must be one of: ${AGE_NAMES.join(", ")}.` }).optional(),
  /**
   * The product's own dead tasks (alert deliveries) are triaged apart, per destination, and
   * left out unless asked for: `include` lists them with the agents' (as does agent=alert-delivery).
   */
  system: z.enum(["include"], { error: "must be include (or left out)." }).optional(),
});
export type DeadLetterFilter = z.output<typeof deadLetterFilterSchema>;

/** The screen's address: the filter and the page position. */
export const deadLetterSearchSchema = deadLetterFilterSchema.extend({
  before: cursorSchema.optional(),
});
export type DeadLetterSearch = z.output<typeof deadLetterSearchSchema>;

/** The message a dead task's error shows: `message` of the recorded error, or the bare value. */
export const errorMessageSql = sql`coalesce(${tasks.lastError} ->> 'message', ${tasks.lastError} #>> '{}')`;

/**
 * The fingerprint of that message (error_fingerprint, migration 0009); "" when no error was
 * recorded. A dead task's is stored (tasks.dead_fingerprint, generated), so this holds only
 * where `status = 'dead'`, as every condition and read here does.
 */
export const fingerprintSql = sql`${tasks.deadFingerprint}`;

/**
 * The tool of a dead task's last journaled tool step, where it was when it stopped: stored
 * (tasks.dead_tool, kept by the triggers of migration 0027), so like fingerprintSql it holds
 * only where `status = 'dead'`.
 */
export const lastToolSql = sql`${tasks.deadTool}`;

/**
 * Dead tasks matching `filter`. With `asOf` (a db-clock instant), only those already dead
 * then: a task that dead-lettered later, or again later, is not among them.
 */
export function deadLetterWhere(filter: DeadLetterFilter, asOf?: string): SQL {
  const parts: SQL[] = [sql`${tasks.status} = 'dead'`];
  if (filter.reason) parts.push(sql`${tasks.deadReason} = ${filter.reason}`);
  if (filter.fingerprint !== undefined) parts.push(sql`${fingerprintSql} = ${filter.fingerprint}`);
  if (filter.agent) parts.push(sql`${tasks.agent} = ${filter.agent}`);
  if (!includesSystem(filter)) parts.push(sql`${tasks.agent} <> ${ALERT_DELIVERY_AGENT}`);
  if (filter.tool) parts.push(sql`${lastToolSql} = ${filter.tool}`);
  if (filter.age) parts.push(sql`${tasks.statusChangedAt} ${DEAD_AGES[filter.age].sql}`);
  if (asOf) parts.push(sql`${tasks.statusChangedAt} <= ${asOf}::timestamptz`);
  return sql.join(parts, sql` and `);
}

/** The filter asks for the product's own dead tasks too (by the toggle, or by naming the agent). */
export function includesSystem(filter: Pick<DeadLetterFilter, "system" | "agent">): boolean {
  return filter.system === "include" || filter.agent === ALERT_DELIVERY_AGENT;
}

/** The filter as URL parameters (only set fields), for links and the live route. */
export function filterParams(filter: DeadLetterFilter): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(filter)) {
    if (typeof value === "string" && value !== "") out[key] = value;
  }
  return out;
}
