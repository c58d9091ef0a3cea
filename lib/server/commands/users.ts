// People who may sign in: created by an admin (or the CLI, or the demo seed), never by
// sign-up. Every change is a `system` ledger entry with who made it, in the same transaction.
import { randomUUID } from "node:crypto";
import { hashPassword } from "better-auth/crypto";
import type pg from "pg";
import { z } from "zod";
import { withTransaction } from "../../../db/client";
import { operator, type Principal, ROLES, type Role } from "../../domain/access";
import { type CommandResult, conflict, refuseWithout } from "../../domain/command-result";
import { describeIssues } from "../../domain/zod-issues";
import { appendLedger, SYSTEM_STREAM } from "../ledger/append-ledger";

export const emailSchema = z
  .string()
  .trim()
  .toLowerCase()
  .email("must be an email address")
  .max(320);
export const passwordSchema = z
  .string()
  .min(12, "must be at least 12 characters")
  .max(256, "must be at most 256 characters");
export const roleSchema = z.enum(ROLES, { message: `must be one of ${ROLES.join(", ")}` });

export const newUserSchema = z.object({
  email: emailSchema,
  name: z.string().trim().min(1, "enter a name").max(120).optional(),
  role: roleSchema,
  password: passwordSchema,
});
export type NewUser = z.infer<typeof newUserSchema>;

export type UserSummary = { id: string; email: string; role: Role; disabled: boolean };

export async function createUser(
  pool: pg.Pool,
  principal: Principal,
  input: NewUser,
): Promise<CommandResult<UserSummary>> {
  // Before the input is judged or a password hashed: the refusal costs nothing.
  const refused = refuseWithout(principal, "users:manage", "add people");
  if (refused) return refused;
  const parsed = newUserSchema.safeParse(input);
  if (!parsed.success) {
    return {
      ok: false,
      code: "invalid",
      message: describeIssues(parsed.error),
    };
  }
  const { email, role, password } = parsed.data;
  const name = parsed.data.name ?? email.split("@")[0] ?? email;
  const hash = await hashPassword(password);
  return withTransaction(pool, async (client) => {
    const id = randomUUID();
    const inserted = await client.query(
      `insert into users (id, name, email, email_verified, role) values ($1, $2, $3, true, $4)
       on conflict do nothing returning id`,
      [id, name, email, role],
    );
    if (inserted.rowCount === 0) {
      return {
        ok: false as const,
        code: "conflict" as const,
        message: `a user with email ${email} already exists`,
      };
    }
    await client.query(
      `insert into accounts (id, account_id, provider_id, user_id, password) values ($1, $2, 'credential', $2, $3)`,
      [randomUUID(), id, hash],
    );
    await appendLedger(client, SYSTEM_STREAM, {
      kind: "user.created",
      actor: principal.actor,
      data: { userId: id, email, name, role },
    });
    return { ok: true as const, value: { id, email, role, disabled: false } };
  });
}

type UserRowLite = { id: string; email: string; role: Role; disabled: boolean };

async function changeUser(
  pool: pg.Pool,
  principal: Principal,
  userId: string,
  what: string,
  change: (
    user: UserRowLite,
  ) => { set: Partial<Pick<UserRowLite, "role" | "disabled">>; kind: string } | { error: string },
): Promise<CommandResult<UserSummary>> {
  const refused = refuseWithout(principal, "users:manage", what);
  if (refused) return refused;
  return withTransaction(pool, async (client) => {
    const { rows } = await client.query<UserRowLite>(
      "select id, email, role, disabled from users where id = $1 for update",
      [userId],
    );
    const user = rows[0];
    if (!user)
      return { ok: false as const, code: "not_found" as const, message: `no user ${userId}` };
    const decided = change(user);
    if ("error" in decided)
      return { ok: false as const, code: "conflict" as const, message: decided.error };
    const after = { ...user, ...decided.set };
    if (after.role === user.role && after.disabled === user.disabled) {
      return { ok: true as const, value: after }; // already so: idempotent, nothing recorded
    }
    // Never leave the system without an active admin.
    if (user.role === "admin" && !user.disabled && (after.role !== "admin" || after.disabled)) {
      const admins = await client.query<{ n: number }>(
        "select count(*)::int as n from users where role = 'admin' and not disabled and id <> $1",
        [user.id],
      );
      if ((admins.rows[0]?.n ?? 0) === 0) {
        return {
          ok: false as const,
          code: "conflict" as const,
          message: "this is the last active admin; make another admin first",
        };
      }
    }
    // Locked above, so the row is as read; the guard and the count say so rather than assume it.
    const updated = await client.query(
      `update users set role = $2, disabled = $3, updated_at = now()
       where id = $1 and role = $4 and disabled = $5`,
      [user.id, after.role, after.disabled, user.role, user.disabled],
    );
    if (updated.rowCount !== 1) return conflict(`${user.email} changed meanwhile; try again`);
    if (after.disabled) await client.query("delete from sessions where user_id = $1", [user.id]);
    await appendLedger(client, SYSTEM_STREAM, {
      kind: decided.kind,
      actor: principal.actor,
      data: {
        userId: user.id,
        email: user.email,
        before: { role: user.role, disabled: user.disabled },
        after: { role: after.role, disabled: after.disabled },
      },
    });
    return { ok: true as const, value: after };
  });
}

export function setUserRole(
  pool: pg.Pool,
  principal: Principal,
  input: { userId: string; role: Role },
) {
  return changeUser(pool, principal, input.userId, "change a person's role", () => ({
    set: { role: input.role },
    kind: "user.role_changed",
  }));
}

/** Disabling ends the user's sessions in the same transaction. */
export function setUserDisabled(
  pool: pg.Pool,
  principal: Principal,
  input: { userId: string; disabled: boolean },
) {
  return changeUser(
    pool,
    principal,
    input.userId,
    input.disabled ? "disable people" : "enable people",
    () => ({
      set: { disabled: input.disabled },
      kind: input.disabled ? "user.disabled" : "user.enabled",
    }),
  );
}

/** Whose sign-in lock an admin lifts: an account (from every address) or an address. */
export const signInUnlockSchema = z.union([
  z.object({ email: emailSchema }).strict(),
  z
    .object({ address: z.union([z.ipv4(), z.ipv6()], { message: "must be an IP address" }) })
    .strict(),
]);
export type SignInUnlock = z.infer<typeof signInUnlockSchema>;

/**
 * Lifts a sign-in lock (lib/auth/login-limit): failures before this moment stop counting
 * against the account and all its (account, address) pairs, or against the address. The owner
 * locked out by someone's guesses gets in at once. Always recorded, with who, even when nothing
 * was locked: the admin asked, and the record says so.
 */
export async function unlockSignIn(
  pool: pg.Pool,
  principal: Principal,
  target: SignInUnlock,
  now: Date = new Date(),
): Promise<CommandResult<{ scope: "account" | "address"; subject: string; at: string }>> {
  const refused = refuseWithout(principal, "users:manage", "lift a sign-in lock");
  if (refused) return refused;
  const parsed = signInUnlockSchema.safeParse(target);
  if (!parsed.success) {
    return { ok: false, code: "invalid", message: describeIssues(parsed.error) };
  }
  const email = "email" in parsed.data ? parsed.data.email : null;
  const address = "address" in parsed.data ? parsed.data.address : null;
  const scope = email !== null ? "account" : "address";
  return withTransaction(pool, async (client) => {
    await client.query(
      `insert into login_lock_events (event, scope, email, ip, at, actor)
       values ('reset', $1, $2, $3, $4, $5)`,
      [scope, email, address, now, principal.actor],
    );
    await appendLedger(client, SYSTEM_STREAM, {
      kind: "sign_in.unlocked",
      actor: principal.actor,
      data: { scope, ...(email !== null ? { email } : { address }) },
    });
    return {
      ok: true as const,
      value: { scope, subject: email ?? address ?? "", at: now.toISOString() },
    };
  });
}

/** Demo accounts for the embedded demo only (npm start prints them). */
export const DEMO_PASSWORD = "agent-ledger-demo";
export const DEMO_USERS: readonly { email: string; role: Role; name: string }[] = [
  { email: "admin@example.com", role: "admin", name: "Ada Admin" },
  { email: "reviewer@example.com", role: "reviewer", name: "Rui Reviewer" },
  { email: "ops@example.com", role: "ops", name: "Olu Ops" },
];

export async function seedDemoUsers(pool: pg.Pool, actor: string): Promise<number> {
  // The seed runs with the database's own access (npm start, the e2e server).
  const seeder = operator(actor);
  let created = 0;
  for (const u of DEMO_USERS) {
    const r = await createUser(pool, seeder, { ...u, password: DEMO_PASSWORD });
    if (r.ok) created++;
  }
  return created;
}
