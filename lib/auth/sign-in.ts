// Password sign-in, the one path for the sign-in form and the HTTP endpoint: parse, check the
// brute-force lock, let better-auth verify the password and create the session, record the
// attempt. Messages never say whether the account exists.
import { isIP } from "node:net";
import { verifyPassword } from "better-auth/crypto";
import { z } from "zod";
import { CLIENT_ADDRESS_HEADER } from "../domain/client-address";
import { getPool } from "../server/db";
import { getAuth } from "./auth";
import { finishLoginAttempt, startLoginAttempt } from "./login-limit";

export const signInInput = z.object({
  email: z.string().trim().toLowerCase().email("enter an email address").max(320),
  password: z.string().min(1, "enter your password").max(256, "that password is too long"),
});

const WRONG = "Wrong email or password, or the account is disabled.";

// Unknown emails are counted and locked exactly like real ones, so these never tell them apart.
const LOCK_WORDS = {
  account: "for this account from this address",
  "account-wide": "for this account",
  address: "from this address",
} as const;

export type SignInResult =
  | { ok: true; headers: Headers; userId: string }
  | { ok: false; status: 400 | 401 | 429; message: string; retryAfterS?: number };

/**
 * The caller's address, as the web server's front gate wrote it from the socket (honouring
 * X-Forwarded-For only through TRUSTED_PROXIES, and dropping any value the client sent). Never
 * X-Forwarded-For itself: its leftmost value is whatever the client wrote. A request that did
 * not pass the gate has no address; such requests share one counter (lib/auth/login-limit).
 */
export function clientIp(headers: Headers): string | null {
  const value = headers.get(CLIENT_ADDRESS_HEADER)?.trim() ?? "";
  return isIP(value) ? value : null;
}

/** better-auth's APIError (its class identity differs between its bundles, so check the shape). */
function isApiError(error: unknown): boolean {
  return (
    error instanceof Error &&
    error.name === "APIError" &&
    typeof (error as { statusCode?: unknown }).statusCode === "number"
  );
}

export async function signInWithPassword(
  raw: unknown,
  requestHeaders: Headers,
  now: Date = new Date(),
): Promise<SignInResult> {
  const parsed = signInInput.safeParse(raw);
  if (!parsed.success) {
    return {
      ok: false,
      status: 400,
      message: parsed.error.issues.map((i) => i.message).join("; "),
    };
  }
  const { email, password } = parsed.data;
  const ip = clientIp(requestHeaders);
  const pool = getPool();
  // Counted as a failure before the password is checked, so a burst of parallel guesses cannot
  // overshoot the allowance; an unexpected error leaves it counted (the lock fails closed).
  const started = await startLoginAttempt(pool, { email, ip, now });
  if (!started.ok) {
    const { lock } = started;
    const retryAfterS = Math.max(1, Math.ceil((lock.lockedUntil.getTime() - now.getTime()) / 1000));
    return {
      ok: false,
      status: 429,
      message: `Too many failed sign-ins ${LOCK_WORDS[lock.by]}. Try again in ${retryAfterS} s.`,
      retryAfterS,
    };
  }
  const { attempt } = started;
  if (await isDisabledAccount(email, password)) {
    await finishLoginAttempt(pool, attempt, false);
    return { ok: false, status: 401, message: WRONG };
  }
  try {
    const { headers, response } = await getAuth().api.signInEmail({
      body: { email, password, rememberMe: false },
      headers: requestHeaders,
      returnHeaders: true,
    });
    if (response.user.disabled) {
      // Disabled between the check above and now: end the session just made.
      await pool.query("delete from sessions where token = $1", [response.token]);
      await finishLoginAttempt(pool, attempt, false);
      return { ok: false, status: 401, message: WRONG };
    }
    await finishLoginAttempt(pool, attempt, true);
    return { ok: true, headers, userId: response.user.id };
  } catch (error) {
    if (!isApiError(error)) throw error;
    await finishLoginAttempt(pool, attempt, false);
    return { ok: false, status: 401, message: WRONG };
  }
}

/**
 * A disabled account is refused before better-auth is asked (its session hook would refuse it
 * too, noisily). The password is still checked, so the answer takes as long as any other.
 */
async function isDisabledAccount(email: string, password: string): Promise<boolean> {
  const { rows } = await getPool().query<{ password: string | null }>(
    `select a.password from users u
       left join accounts a on a.user_id = u.id and a.provider_id = 'credential'
     where lower(u.email) = $1 and u.disabled`,
    [email],
  );
  const row = rows[0];
  if (!row) return false;
  if (row.password) await verifyPassword({ hash: row.password, password });
  return true;
}
