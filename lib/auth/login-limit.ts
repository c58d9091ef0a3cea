// The brute-force lock on password sign-in. Per account: the 11th failed attempt within a minute
// (since the last success) is refused even with the right password, until the 10th-latest
// failure is a minute old. Per address: the same with a larger allowance, so one host cannot try
// many accounts. The clock is a parameter so tests can move it.
import type { SqlClient } from "../../db/client";

export const LOGIN_LIMITS = {
  windowMs: 60_000,
  perAccount: 10,
  perAddress: 50,
} as const;

export type LoginLock = { lockedUntil: Date; by: "account" | "address" } | null;

async function lockFor(
  client: SqlClient,
  column: "email" | "ip",
  value: string,
  limit: number,
  now: Date,
): Promise<Date | null> {
  // The limit-th most recent failure inside the window, counting only failures after the last
  // success for this account or address. While it exists the lock holds; it lifts when that
  // failure leaves the window.
  const { rows } = await client.query<{ at: Date }>(
    `select at from login_attempts
      where ${column} = $1 and not ok
        and at > $2::timestamptz - make_interval(secs => $3::double precision / 1000)
        and at <= $2::timestamptz
        and at > coalesce((select max(at) from login_attempts where ${column} = $1 and ok and at <= $2::timestamptz), '-infinity')
      order by at desc offset $4 - 1 limit 1`,
    [value, now, LOGIN_LIMITS.windowMs, limit],
  );
  const at = rows[0]?.at;
  return at ? new Date(at.getTime() + LOGIN_LIMITS.windowMs) : null;
}

export async function loginLock(
  client: SqlClient,
  attempt: { email: string; ip: string | null; now: Date },
): Promise<LoginLock> {
  const account = await lockFor(
    client,
    "email",
    attempt.email.toLowerCase(),
    LOGIN_LIMITS.perAccount,
    attempt.now,
  );
  if (account) return { lockedUntil: account, by: "account" };
  if (attempt.ip) {
    const address = await lockFor(client, "ip", attempt.ip, LOGIN_LIMITS.perAddress, attempt.now);
    if (address) return { lockedUntil: address, by: "address" };
  }
  return null;
}

export async function recordLoginAttempt(
  client: SqlClient,
  attempt: { email: string; ip: string | null; ok: boolean; now: Date },
): Promise<void> {
  await client.query("insert into login_attempts (email, ip, ok, at) values ($1, $2, $3, $4)", [
    attempt.email.toLowerCase(),
    attempt.ip,
    attempt.ok,
    attempt.now,
  ]);
}
