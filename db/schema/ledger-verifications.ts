import { sql } from "drizzle-orm";
import { bigint, boolean, check, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import type { JsonValue } from "../../lib/domain/json";

/**
 * The outcome of the periodic chain verify the workers run (worker/ledger-verify.ts): one row,
 * upserted by each run, so the /ledger badge can say "verified through entry N at T". A row,
 * not a ledger entry: a run every few minutes would grow the append-only ledger without bound
 * (and would itself need verifying); what matters is the latest outcome and the last failure.
 */
export const ledgerVerifications = pgTable(
  "ledger_verifications",
  {
    /** Always `chain`: one row. */
    name: text("name").primaryKey(),
    /** Every entry with an id up to this one was verified (0: none yet). */
    throughId: bigint("through_id", { mode: "number" }).notNull(),
    /** When that entry was appended. */
    throughAt: timestamp("through_at", { withTimezone: true, precision: 3 }),
    /** When the latest run finished. */
    verifiedAt: timestamp("verified_at", { withTimezone: true }).notNull(),
    /**
     * `full` (every chain from its start, heads and checkpoints), `checkpoint` (the same from the
     * heads the latest signed checkpoint recorded) or `incremental` (the entries appended since).
     */
    mode: text("mode").notNull(),
    /** When the latest full run finished, whatever its outcome. */
    fullAt: timestamp("full_at", { withTimezone: true }),
    /** When the latest run from a signed checkpoint finished, whatever its outcome. */
    checkpointAt: timestamp("checkpoint_at", { withTimezone: true }),
    /** False from a failed run until a full run passes again: a failure is never papered over. */
    ok: boolean("ok").notNull(),
    /** When the chain was last found broken, and what was wrong (the first few problems). */
    failedAt: timestamp("failed_at", { withTimezone: true }),
    problems: jsonb("problems").$type<JsonValue>().notNull().default(sql`'[]'::jsonb`),
    /** Entries the latest run checked. */
    entriesChecked: bigint("entries_checked", { mode: "number" }).notNull(),
  },
  (t) => [
    check(
      "ledger_verifications_mode_check",
      sql`${t.mode} in ('full', 'checkpoint', 'incremental')`,
    ),
    check("ledger_verifications_through_check", sql`${t.throughId} >= 0`),
  ],
);

export type LedgerVerificationRow = typeof ledgerVerifications.$inferSelect;
