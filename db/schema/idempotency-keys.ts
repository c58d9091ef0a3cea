import { sql } from "drizzle-orm";
import {
  check,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
} from "drizzle-orm/pg-core";

/**
 * The HTTP `Idempotency-Key` store: the first response to a key, per caller and operation,
 * kept until `expires_at`. The primary key backs up the advisory lock that serializes a key.
 */
export const idempotencyKeys = pgTable(
  "idempotency_keys",
  {
    /** Who sent it ("token:<id>", "user:<id>"): one caller cannot replay another's response. */
    principal: text("principal").notNull(),
    /** Method and path, e.g. "POST /api/v1/tasks". */
    operation: text("operation").notNull(),
    key: text("key").notNull(),
    /** sha256 of the canonical JSON request body. */
    fingerprint: text("fingerprint").notNull(),
    status: integer("status").notNull(),
    body: jsonb("body").notNull(),
    /** Only the response headers a replay must repeat (e.g. Location). */
    headers: jsonb("headers").notNull().default({}),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.principal, t.operation, t.key] }),
    check("idempotency_keys_fingerprint_check", sql`${t.fingerprint} ~ '^[0-9a-f]{64}$'`),
    check("idempotency_keys_status_check", sql`${t.status} between 200 and 599`),
    check("idempotency_keys_expiry_check", sql`${t.expiresAt} > ${t.createdAt}`),
    // The purge walks expired rows oldest first.
    index("idempotency_keys_expires_idx").on(t.expiresAt),
  ],
);

export type IdempotencyKeyRow = typeof idempotencyKeys.$inferSelect;
