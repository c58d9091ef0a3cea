// The brute-force limits on password sign-in, counted from login_attempts in sliding windows.
// The clock is a parameter so tests can move it. Three counters, each answering one attack:
//
// - per (account, address), strong: after `pair.free` failures within the window, each further
//   attempt from that address on that account waits `pair.baseMs`·2^k after the pair's latest
//   failure (k = failures beyond the allowance), capped at `pair.capMs`. This is the guesser's
//   own lock: it never slows anyone at another address.
// - per account, gentle: after `account.free` failures on the account from anywhere (many
//   addresses guessing one password), every address that has itself failed on the account waits
//   `account.baseMs`·2^k after its own latest failure, capped at `account.capMs`. An address with
//   no recent failure on the account is never held back by it, and the wait is measured from the
//   caller's own failures, so a stranger's guesses cannot keep the owner out: a correct password
//   from a clean address always gets checked. (A stranger at the owner's own address can slow
//   them; SSO and an admin reset always work.)
// - per address, hard: `address.limit` failures across all accounts within its window lock the
//   address until the oldest of them leaves the window (one host spraying many accounts).
//
// A success clears only its own account's failures: the account-wide count, and the pair's at the
// address it came from. It never touches the address counter, or the attacker would sign in to
// an account of their own between guesses; nor another address's pair, which is someone else's
// guessing. An admin reset clears an account (and all its pairs) or an address.
//
// An attempt is counted as a failure before its password is checked (startLoginAttempt) and
// becomes a success only when it proves right, so parallel guesses see each other. An attempt
// refused by a lock is not recorded (no password was checked). Every lock is recorded
// once, as a `sign_in.locked` system ledger entry, when a counter is at or past its threshold and
// no lock of the same subject was recorded within that counter's window (or since its reset).
// Requests without an address (they did not come through the web gate) share one address.
import type pg from "pg";
import { withTransaction } from "../../db/client";
import type { LoginLockScope } from "../../db/schema/auth";
import { logger } from "../log";
import { appendLedger, SYSTEM_STREAM } from "../server/ledger/append-ledger";

export const LOGIN_LIMITS = {
  /** How long a failure counts against its account and its (account, address) pair. */
  windowMs: 60 * 60_000,
  pair: { free: 10, baseMs: 30_000, capMs: 15 * 60_000 },
  account: { free: 20, baseMs: 5_000, capMs: 5 * 60_000 },
  address: { limit: 50, windowMs: 15 * 60_000 },
} as const;

/** The ledger actor for locks the sign-in path decides on its own. */
export const SIGN_IN_ACTOR = "system:sign-in";

export type LoginLock = {
  lockedUntil: Date;
  /** "account": this account from this address; "account-wide"; "address": every account. */
  by: "account" | "account-wide" | "address";
} | null;

type Attempt = { email: string; ip: string | null; now: Date };

/** base·2^k, capped; k is small in practice, but never overflows. */
export function backoffMs(k: number, baseMs: number, capMs: number): number {
  return Math.min(capMs, baseMs * 2 ** Math.min(Math.max(k, 0), 40));
}

/** An address comparison that also matches "no address" (the request had none). */
const ipIs = (ip: string | null, param: string) =>
  ip === null ? `(${param}::inet is null and ip is null)` : `ip = ${param}::inet`;

type Counts = {
  pair_failures: number;
  pair_last: Date | null;
  account_failures: number;
  /** The account's `account.free`-th latest counted failure: the slowdown holds while it counts. */
  account_limit_at: Date | null;
  address_failures: number;
  /** The address's `address.limit`-th latest counted failure: the lock holds while it counts. */
  address_limit_at: Date | null;
};

/**
 * The failures that count at `now`: the pair's since its last success and the account's last
 * reset, the account's since its last success anywhere and its last reset, the address's since
 * its last reset. All within their windows; none after `now` unless `mode` is "live".
 */
async function countFailures(
  client: pg.ClientBase | pg.Pool,
  a: Attempt,
  /**
   * "live": also count failures stamped after `now`. Each request reads its clock before it
   * waits its turn (serialize), so a concurrent attempt's charge can carry a later time than
   * this one's `now`; it is still an attempt that happened. "as of": exactly what had happened
   * at `now` (a clock moved by a test, a read-only look).
   */
  mode: "live" | "as of" = "as of",
): Promise<Counts> {
  const { rows } = await client.query<Counts>(
    `with
       account_reset as (
         select max(at) as at from login_lock_events
          where event = 'reset' and scope = 'account' and email = $1 and at <= $3),
       address_reset as (
         select max(at) as at from login_lock_events
          where event = 'reset' and scope = 'address' and ${ipIs(a.ip, "$2")} and at <= $3),
       pair_since as (
         select greatest($3::timestamptz - make_interval(secs => $4::double precision / 1000),
                         (select at from account_reset),
                         (select max(at) from login_attempts
                           where email = $1 and ${ipIs(a.ip, "$2")} and ok and at <= $3)) as at),
       account_since as (
         select greatest($3::timestamptz - make_interval(secs => $4::double precision / 1000),
                         (select at from account_reset),
                         (select max(at) from login_attempts
                           where email = $1 and ok and at <= $3)) as at),
       address_failures as (
         select at from login_attempts
          where ${ipIs(a.ip, "$2")} and not ok and ($7::boolean or at <= $3)
            and at > greatest($3::timestamptz - make_interval(secs => $5::double precision / 1000),
                              (select at from address_reset)))
     select
       (select count(*)::int from login_attempts
         where email = $1 and ${ipIs(a.ip, "$2")} and not ok and ($7::boolean or at <= $3)
           and at > (select at from pair_since)) as pair_failures,
       (select max(at) from login_attempts
         where email = $1 and ${ipIs(a.ip, "$2")} and not ok and ($7::boolean or at <= $3)
           and at > (select at from pair_since)) as pair_last,
       (select count(*)::int from login_attempts
         where email = $1 and not ok and ($7::boolean or at <= $3)
           and at > (select at from account_since)) as account_failures,
       (select at from login_attempts
         where email = $1 and not ok and ($7::boolean or at <= $3)
           and at > (select at from account_since)
         order by at desc offset $8 - 1 limit 1) as account_limit_at,
       (select count(*)::int from address_failures) as address_failures,
       (select at from address_failures order by at desc offset $6 - 1 limit 1) as address_limit_at`,
    [
      a.email.toLowerCase(),
      a.ip,
      a.now,
      LOGIN_LIMITS.windowMs,
      LOGIN_LIMITS.address.windowMs,
      LOGIN_LIMITS.address.limit,
      mode === "live",
      LOGIN_LIMITS.account.free,
    ],
  );
  const row = rows[0];
  if (!row) throw new Error("the failure count returned no row");
  return row;
}

/** When this (account, address) may try again, or null when it may now. */
function slowedUntil(c: Counts, now: Date): LoginLock {
  const { pair, account } = LOGIN_LIMITS;
  if (!c.pair_last || c.pair_failures === 0) return null;
  const pairWait =
    c.pair_failures >= pair.free
      ? backoffMs(c.pair_failures - pair.free, pair.baseMs, pair.capMs)
      : 0;
  const accountWait =
    c.account_failures >= account.free
      ? backoffMs(c.account_failures - account.free, account.baseMs, account.capMs)
      : 0;
  const wait = Math.max(pairWait, accountWait);
  if (wait === 0) return null;
  const until = new Date(c.pair_last.getTime() + wait);
  if (until <= now) return null;
  return { lockedUntil: until, by: pairWait >= accountWait ? "account" : "account-wide" };
}

/** Whether this attempt is refused before any password is checked, and until when. */
export async function loginLock(
  client: pg.ClientBase | pg.Pool,
  a: Attempt,
  mode: "live" | "as of" = "as of",
): Promise<LoginLock> {
  const c = await countFailures(client, a, mode);
  if (c.address_limit_at) {
    const until = new Date(c.address_limit_at.getTime() + LOGIN_LIMITS.address.windowMs);
    if (until > a.now) return { lockedUntil: until, by: "address" };
  }
  return slowedUntil(c, a.now);
}

type NewLock = {
  scope: LoginLockScope;
  email: string | null;
  ip: string | null;
  until: Date;
  failures: number;
  windowMs: number;
};

/**
 * The locks in force after this failure, as of the counts: each is recorded unless the same
 * subject's lock was already recorded within its window (alreadyRecorded), so a lock is one
 * entry however many attempts it refuses, and concurrent failures cannot skip past a threshold.
 */
function locksStarted(c: Counts, a: Attempt): NewLock[] {
  const { pair, account, address, windowMs } = LOGIN_LIMITS;
  const email = a.email.toLowerCase();
  const started: NewLock[] = [];
  if (c.pair_failures >= pair.free && c.pair_last) {
    const wait = backoffMs(c.pair_failures - pair.free, pair.baseMs, pair.capMs);
    started.push({
      scope: "account_address",
      email,
      ip: a.ip,
      until: new Date(c.pair_last.getTime() + wait),
      failures: c.pair_failures,
      windowMs,
    });
  }
  if (c.account_failures >= account.free && c.account_limit_at) {
    // The account-wide slowdown lifts when fewer than `account.free` failures are left in the window.
    started.push({
      scope: "account",
      email,
      ip: null,
      until: new Date(c.account_limit_at.getTime() + windowMs),
      failures: c.account_failures,
      windowMs,
    });
  }
  if (c.address_failures >= address.limit && c.address_limit_at) {
    started.push({
      scope: "address",
      email: null,
      ip: a.ip,
      until: new Date(c.address_limit_at.getTime() + address.windowMs),
      failures: c.address_failures,
      windowMs: address.windowMs,
    });
  }
  return started;
}

/** A lock of this subject recorded within the window (and after its last reset) is the same lock. */
async function alreadyRecorded(client: pg.ClientBase, lock: NewLock, now: Date): Promise<boolean> {
  // An address's reset lifts its address lock; an account's reset lifts the account's and its
  // pairs' locks. Events store null for the half of the subject they do not have.
  const reset =
    lock.scope === "address"
      ? { scope: "address", email: null, ip: lock.ip }
      : { scope: "account", email: lock.email, ip: null };
  const { rows } = await client.query(
    `select 1 from login_lock_events
      where event = 'locked' and scope = $3
        and email is not distinct from $1::text and ip is not distinct from $2::inet
        and at <= $4 and at > $4::timestamptz - make_interval(secs => $5::double precision / 1000)
        and at > coalesce((select max(at) from login_lock_events
                            where event = 'reset' and scope = $6 and at <= $4
                              and email is not distinct from $7::text
                              and ip is not distinct from $8::inet),
                          '-infinity')
      limit 1`,
    [lock.email, lock.ip, lock.scope, now, lock.windowMs, reset.scope, reset.email, reset.ip],
  );
  return rows.length > 0;
}

/**
 * Serializes what follows, in this transaction, with every other attempt on the same account or
 * from the same address. Always the account first, then the address, so two transactions never
 * wait on each other in a cycle.
 */
async function serialize(client: pg.ClientBase, email: string, ip: string | null): Promise<void> {
  await client.query("select pg_advisory_xact_lock(hashtextextended('sign-in:email:' || $1, 0))", [
    email,
  ]);
  await client.query(
    "select pg_advisory_xact_lock(hashtextextended('sign-in:ip:' || coalesce($1::text, '-'), 0))",
    [ip],
  );
}

/** Records the locks this (already counted) failure started, once each. */
async function recordLocksStarted(
  client: pg.ClientBase,
  a: Attempt,
  mode: "live" | "as of",
): Promise<NewLock[]> {
  const counts = await countFailures(client, a, mode);
  const recorded: NewLock[] = [];
  for (const lock of locksStarted(counts, a)) {
    if (await alreadyRecorded(client, lock, a.now)) continue;
    await client.query(
      `insert into login_lock_events (event, scope, email, ip, at, until)
       values ('locked', $1, $2, $3, $4, $5)`,
      [lock.scope, lock.email, lock.ip, a.now, lock.until],
    );
    await appendLedger(client, SYSTEM_STREAM, {
      kind: "sign_in.locked",
      actor: SIGN_IN_ACTOR,
      data: {
        scope: lock.scope,
        ...(lock.email !== null ? { email: lock.email } : {}),
        ...(lock.scope !== "account" ? { address: lock.ip } : {}),
        failures: lock.failures,
        until: lock.until.toISOString(),
      },
    });
    recorded.push(lock);
  }
  return recorded;
}

function logLocks(locks: readonly NewLock[]): void {
  // No email in the log: the ledger entry has it, for the people who may read it.
  for (const lock of locks) {
    logger("sign-in").warn(
      { scope: lock.scope, address: lock.ip, until: lock.until.toISOString() },
      "sign-in lock started",
    );
  }
}

export type StartedAttempt = { id: number; email: string; ip: string | null; now: Date };

/**
 * Checks the limits and, when the attempt may go on, counts it as a failure before any password
 * is checked, in one serialized transaction. A burst of concurrent attempts therefore sees each
 * other: the eleventh is refused even while the first ten are still being checked. The count
 * becomes a success (finishLoginAttempt) only once the password proved right.
 */
export async function startLoginAttempt(
  pool: pg.Pool,
  attempt: Attempt,
): Promise<{ ok: true; attempt: StartedAttempt } | { ok: false; lock: NonNullable<LoginLock> }> {
  const a = { ...attempt, email: attempt.email.toLowerCase() };
  return withTransaction(pool, async (client) => {
    await serialize(client, a.email, a.ip);
    const lock = await loginLock(client, a, "live");
    if (lock) return { ok: false as const, lock };
    const { rows } = await client.query<{ id: number }>(
      "insert into login_attempts (email, ip, ok, at) values ($1, $2, false, $3) returning id",
      [a.email, a.ip, a.now],
    );
    const id = rows[0]?.id;
    if (id === undefined) throw new Error("the attempt was not recorded");
    return { ok: true as const, attempt: { id: Number(id), ...a } };
  });
}

/** The password's verdict on a started attempt: a success, or a failure and the locks it starts. */
export async function finishLoginAttempt(
  pool: pg.Pool,
  attempt: StartedAttempt,
  ok: boolean,
): Promise<void> {
  if (ok) {
    const updated = await pool.query(
      "update login_attempts set ok = true where id = $1 and not ok",
      [attempt.id],
    );
    if (updated.rowCount !== 1) throw new Error(`sign-in attempt ${attempt.id} is not pending`);
    return;
  }
  const started = await withTransaction(pool, async (client) => {
    await serialize(client, attempt.email, attempt.ip);
    return recordLocksStarted(client, attempt, "live");
  });
  logLocks(started);
}

/** Records one checked password at once (the limits' tests, and anything replaying history). */
export async function recordLoginAttempt(
  pool: pg.Pool,
  attempt: Attempt & { ok: boolean },
): Promise<void> {
  const a = { ...attempt, email: attempt.email.toLowerCase() };
  const started = await withTransaction(pool, async (client) => {
    await serialize(client, a.email, a.ip);
    await client.query("insert into login_attempts (email, ip, ok, at) values ($1, $2, $3, $4)", [
      a.email,
      a.ip,
      a.ok,
      a.now,
    ]);
    return a.ok ? [] : recordLocksStarted(client, a, "as of");
  });
  logLocks(started);
}
