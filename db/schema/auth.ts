import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  check,
  index,
  inet,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { ROLES } from "../../lib/domain/access";
import { inList } from "./check";

// The four tables better-auth's drizzle adapter expects (users, sessions, accounts,
// verifications; `usePlural`), plus what we add: each user's role and whether they are
// disabled, login attempts for the brute-force lock, and hashed API tokens.

const createdAt = () => timestamp("created_at", { withTimezone: true }).notNull().defaultNow();
const updatedAt = () => timestamp("updated_at", { withTimezone: true }).notNull().defaultNow();

export const users = pgTable(
  "users",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    email: text("email").notNull(),
    emailVerified: boolean("email_verified").notNull().default(false),
    image: text("image"),
    role: text("role", { enum: ROLES }).notNull().default("ops"),
    /** A disabled user's sessions stop working at once; the row stays for the audit trail. */
    disabled: boolean("disabled").notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("users_email_idx").on(sql`lower(${t.email})`),
    check("users_role_check", sql`${t.role} in (${inList(ROLES)})`),
  ],
);

export const sessions = pgTable(
  "sessions",
  {
    id: text("id").primaryKey(),
    token: text("token").notNull().unique(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    ipAddress: text("ip_address"),
    userAgent: text("user_agent"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("sessions_user_idx").on(t.userId)],
);

export const accounts = pgTable(
  "accounts",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id").notNull(),
    providerId: text("provider_id").notNull(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    accessToken: text("access_token"),
    refreshToken: text("refresh_token"),
    idToken: text("id_token"),
    accessTokenExpiresAt: timestamp("access_token_expires_at", { withTimezone: true }),
    refreshTokenExpiresAt: timestamp("refresh_token_expires_at", { withTimezone: true }),
    scope: text("scope"),
    password: text("password"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("accounts_user_idx").on(t.userId),
    uniqueIndex("accounts_provider_account_idx").on(t.providerId, t.accountId),
  ],
);

export const verifications = pgTable(
  "verifications",
  {
    id: text("id").primaryKey(),
    identifier: text("identifier").notNull(),
    value: text("value").notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("verifications_identifier_idx").on(t.identifier)],
);

/** Every password sign-in attempt, kept for the per-account and per-address lock. */
export const loginAttempts = pgTable(
  "login_attempts",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    /** Lower-cased email as typed: attempts on unknown accounts lock too, so none leak. */
    email: text("email").notNull(),
    ip: inet("ip"),
    ok: boolean("ok").notNull(),
    at: timestamp("at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("login_attempts_email_idx").on(t.email, t.at),
    index("login_attempts_ip_idx").on(t.ip, t.at),
  ],
);

/**
 * When a sign-in lock began (once per lock, written with its `sign_in.locked` ledger entry) and
 * when an admin reset one (`sign_in.unlocked`). Failures before an account's or an address's
 * latest reset no longer count; a lock already recorded within its window is not recorded again.
 */
export const LOGIN_LOCK_SCOPES = ["account_address", "account", "address"] as const;
export type LoginLockScope = (typeof LOGIN_LOCK_SCOPES)[number];

export const loginLockEvents = pgTable(
  "login_lock_events",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    event: text("event", { enum: ["locked", "reset"] }).notNull(),
    scope: text("scope", { enum: LOGIN_LOCK_SCOPES }).notNull(),
    email: text("email"),
    ip: inet("ip"),
    at: timestamp("at", { withTimezone: true }).notNull().defaultNow(),
    /** A lock: when the caller may try again. */
    until: timestamp("until", { withTimezone: true }),
    /** A reset: who did it. */
    actor: text("actor"),
  },
  (t) => [
    index("login_lock_events_email_idx").on(t.email, t.at),
    index("login_lock_events_ip_idx").on(t.ip, t.at),
    check("login_lock_events_event_check", sql`${t.event} in ('locked', 'reset')`),
    check(
      "login_lock_events_scope_check",
      sql`${t.scope} in (${sql.raw(LOGIN_LOCK_SCOPES.map((s) => `'${s}'`).join(", "))})`,
    ),
    check(
      "login_lock_events_shape_check",
      sql`(${t.event} = 'locked' and ${t.until} is not null and ${t.actor} is null) or (${t.event} = 'reset' and ${t.until} is null and ${t.actor} is not null and ${t.scope} <> 'account_address')`,
    ),
    check(
      "login_lock_events_subject_check",
      sql`(${t.scope} = 'address' and ${t.email} is null) or (${t.scope} = 'account' and ${t.email} is not null and ${t.ip} is null) or (${t.scope} = 'account_address' and ${t.email} is not null)`,
    ),
  ],
);

/** Machine credentials: shown once, stored as a sha256, scoped, revocable. */
export const apiTokens = pgTable(
  "api_tokens",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    /** sha256 (hex) of the secret part; the secret itself is never stored. */
    hash: text("hash").notNull().unique(),
    /** The first characters of the token, so a person can tell tokens apart. */
    prefix: text("prefix").notNull(),
    scopes: text("scopes").array().notNull(),
    createdBy: text("created_by").notNull(),
    createdAt: createdAt(),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true }),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
    revokedBy: text("revoked_by"),
  },
  (t) => [uniqueIndex("api_tokens_active_name_idx").on(t.name).where(sql`${t.revokedAt} is null`)],
);

export type UserRow = typeof users.$inferSelect;
export type ApiTokenRow = typeof apiTokens.$inferSelect;
