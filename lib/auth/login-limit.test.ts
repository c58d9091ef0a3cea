// The sign-in limits against real rows, with the clock passed in: the (account, address) pair
// slows down exponentially and caps; a success does not reset the address; a stranger's guesses
// never keep the owner out; an address spraying many accounts is locked; each lock is one
// `sign_in.locked` system entry; an admin reset is a `sign_in.unlocked` entry and lifts it.
import { describe, expect, it } from "vitest";
import { setUpTestDatabase } from "../../db/testing/database";
import { operator } from "../domain/access";
import { unlockSignIn } from "../server/commands/users";
import { verifyLedger } from "../server/ledger/verify-ledger";
import {
  backoffMs,
  finishLoginAttempt,
  LOGIN_LIMITS,
  loginLock,
  recordLoginAttempt,
  startLoginAttempt,
} from "./login-limit";

const t = await setUpTestDatabase("login-limit");

const { pair, account, address } = LOGIN_LIMITS;
const T0 = Date.parse("2030-01-01T00:00:00.000Z");
const at = (ms: number) => new Date(T0 + ms);
let counter = 0;
/** A fresh account and address per test, so tests share nothing. */
function fresh() {
  counter += 1;
  return { email: `person${counter}@example.com`, ip: `10.0.${counter}.1` };
}

async function fail(email: string, ip: string | null, ms: number) {
  await recordLoginAttempt(t.pool, { email, ip, ok: false, now: at(ms) });
}
async function succeed(email: string, ip: string | null, ms: number) {
  await recordLoginAttempt(t.pool, { email, ip, ok: true, now: at(ms) });
}
const lockAt = (email: string, ip: string | null, ms: number) =>
  loginLock(t.pool, { email, ip, now: at(ms) });

type Entry = { kind: string; actor: string; data: Record<string, unknown> };
async function entriesAbout(key: "email" | "address", value: string): Promise<Entry[]> {
  const { rows } = await t.pool.query<Entry>(
    `select kind, actor, data from ledger_entries
      where stream = 'system' and kind like 'sign_in.%' and data->>$1 = $2 order by seq`,
    [key, value],
  );
  return rows;
}

describe("per account and address", () => {
  it("refuses the 11th attempt after 10 failures, before any password check, for 30 s", async () => {
    const { email, ip } = fresh();
    for (let i = 0; i < pair.free - 1; i++) await fail(email, ip, i * 1_000);
    expect(await lockAt(email, ip, 9_500)).toBeNull();
    await fail(email, ip, 9_500);
    expect(await lockAt(email, ip, 10_000)).toEqual({
      by: "account",
      lockedUntil: at(9_500 + pair.baseMs),
    });
    // Someone else from the same address, and the same account from another address, may try.
    expect(await lockAt("someone-else@example.com", ip, 10_000)).toBeNull();
    expect(await lockAt(email, "10.200.0.1", 10_000)).toBeNull();
    expect(await lockAt(email, ip, 9_500 + pair.baseMs)).toBeNull();
  });

  it("doubles the wait with each further failure, up to the cap", async () => {
    const { email, ip } = fresh();
    for (let i = 0; i < pair.free; i++) await fail(email, ip, i);
    let last = pair.free - 1;
    const waits: number[] = [];
    // Seven steps fit in the hour the first ten failures count for.
    for (let k = 0; k < 7; k++) {
      const lock = await lockAt(email, ip, last + 1);
      if (!lock) throw new Error(`not slowed after ${pair.free + k} failures`);
      const wait = lock.lockedUntil.getTime() - at(last).getTime();
      waits.push(wait);
      // One millisecond early is still refused; at the time given, a password is checked again.
      expect(await lockAt(email, ip, last + wait - 1)).not.toBeNull();
      expect(await lockAt(email, ip, last + wait)).toBeNull();
      last += wait;
      await fail(email, ip, last);
    }
    expect(waits).toEqual([30_000, 60_000, 120_000, 240_000, 480_000, 900_000, 900_000]);
    expect(waits.every((w, k) => w === backoffMs(k, pair.baseMs, pair.capMs))).toBe(true);
  });

  it("a success clears that account's own failures from that address", async () => {
    const { email, ip } = fresh();
    for (let i = 0; i < pair.free - 1; i++) await fail(email, ip, i * 1_000);
    await succeed(email, ip, 9_000);
    for (let i = 0; i < pair.free - 1; i++) await fail(email, ip, 10_000 + i * 1_000);
    expect(await lockAt(email, ip, 19_000)).toBeNull();
    await fail(email, ip, 19_000);
    expect(await lockAt(email, ip, 19_500)).toMatchObject({ by: "account" });
  });

  it("a success elsewhere does not lift the lock a guesser earned at their address", async () => {
    const { email, ip } = fresh();
    for (let i = 0; i < pair.free; i++) await fail(email, ip, i * 1_000);
    await succeed(email, "10.201.0.1", 10_000);
    expect(await lockAt(email, ip, 10_001)).toMatchObject({ by: "account" });
  });

  it("failures older than an hour do not count", async () => {
    const { email, ip } = fresh();
    for (let i = 0; i < pair.free; i++) await fail(email, ip, i * 1_000);
    expect(await lockAt(email, ip, 10_000)).not.toBeNull();
    // The first failure leaves the window: nine count, the next attempt may try.
    expect(await lockAt(email, ip, LOGIN_LIMITS.windowMs + 1)).toBeNull();
    // Failures in the future of `now` do not count either.
    expect(await lockAt(email, ip, 4_500)).toBeNull();
  });
});

describe("attempts in parallel", () => {
  it("a burst of 25 parallel guesses gets 10 password checks, not 25", async () => {
    const { email, ip } = fresh();
    const burst = await Promise.all(
      Array.from({ length: 25 }, () => startLoginAttempt(t.pool, { email, ip, now: at(1_000) })),
    );
    const admitted = burst.flatMap((r) => (r.ok ? [r.attempt] : []));
    expect(admitted).toHaveLength(pair.free);
    expect(burst.filter((r) => !r.ok)).toHaveLength(25 - pair.free);
    // Their passwords all prove wrong: one lock, recorded once.
    await Promise.all(admitted.map((a) => finishLoginAttempt(t.pool, a, false)));
    const locks = (await entriesAbout("email", email)).filter((e) => e.kind === "sign_in.locked");
    expect(locks).toHaveLength(1);
  });

  it("counts attempts that read their clock earlier but took their turn later", async () => {
    // Each request reads the clock before it waits for its turn: the last to be served can carry
    // the earliest time. Served in the reverse order of their clocks, they still see each other.
    const { email, ip } = fresh();
    const served = [];
    for (let ms = 25; ms >= 1; ms--)
      served.push(await startLoginAttempt(t.pool, { email, ip, now: at(ms) }));
    expect(served.filter((r) => r.ok)).toHaveLength(pair.free);
  });

  it("a started attempt whose password proves right is a success, and clears the pair", async () => {
    const { email, ip } = fresh();
    for (let i = 0; i < pair.free - 1; i++) await fail(email, ip, i);
    const started = await startLoginAttempt(t.pool, { email, ip, now: at(100) });
    if (!started.ok) throw new Error("the tenth attempt was refused");
    // While it is checked, it counts: the next one waits.
    expect(await lockAt(email, ip, 101)).toMatchObject({ by: "account" });
    await finishLoginAttempt(t.pool, started.attempt, true);
    expect(await lockAt(email, ip, 101)).toBeNull();
    await expect(finishLoginAttempt(t.pool, started.attempt, true)).rejects.toThrow(/not pending/);
  });
});

describe("per address", () => {
  it("rotating accounts: the address is locked after 50 failures, and only that address", async () => {
    const { ip } = fresh();
    for (let i = 0; i < address.limit - 1; i++)
      await fail(`spray${counter}-${i}@example.com`, ip, i);
    expect(await lockAt("new@example.com", ip, 5_000)).toBeNull();
    await fail(`spray${counter}-last@example.com`, ip, 4_950);
    expect(await lockAt("new@example.com", ip, 5_000)).toEqual({
      by: "address",
      lockedUntil: at(address.windowMs),
    });
    expect(await lockAt("new@example.com", "10.202.0.1", 5_000)).toBeNull();
    expect(await lockAt("new@example.com", ip, address.windowMs - 1)).not.toBeNull();
    expect(await lockAt("new@example.com", ip, address.windowMs)).toBeNull();
  });

  it("a success with the attacker's own account does not reset the address's count", async () => {
    const { ip } = fresh();
    const own = `attacker${counter}@example.com`;
    const half = Math.floor(address.limit / 2);
    for (let i = 0; i < half; i++) await fail(`victim${counter}-${i}@example.com`, ip, i);
    await succeed(own, ip, half);
    for (let i = half; i < address.limit; i++) {
      expect(await lockAt(`victim${counter}-${i}@example.com`, ip, i + 1)).toBeNull();
      await fail(`victim${counter}-${i}@example.com`, ip, i + 1);
    }
    // Fifty failures around a success: locked, for the attacker's own account too.
    expect(await lockAt(own, ip, address.limit + 1)).toMatchObject({ by: "address" });
  });

  it("requests without an address share one counter", async () => {
    const name = `noaddress${counter}`;
    for (let i = 0; i < address.limit; i++) await fail(`${name}-${i}@example.com`, null, i);
    expect(await lockAt("anyone@example.com", null, address.limit)).toMatchObject({
      by: "address",
    });
    expect(await lockAt("anyone@example.com", "10.203.0.1", address.limit)).toBeNull();
    // Leave no shared lock for the other tests.
    await t.pool.query("delete from login_attempts where ip is null");
  });
});

describe("a stranger's guesses", () => {
  it("never keep the owner out: a clean address is checked; a mistyped one waits at most the cap", async () => {
    const { email: owner } = fresh();
    const ownerIp = "10.210.0.1";
    // A stranger guesses the owner's password from many addresses for a long time: ten fast
    // failures from each of three addresses, then one every time the pair's wait lifts.
    const strangers = ["10.211.0.1", "10.211.0.2", "10.211.0.3"];
    let now = 0;
    for (const ip of strangers) for (let i = 0; i < pair.free; i++) await fail(owner, ip, now++);
    const stranger = strangers[0] as string;
    for (let k = 0; k < 6; k++) {
      now += backoffMs(k, pair.baseMs, pair.capMs);
      await fail(owner, stranger, now);
    }
    expect(await lockAt(owner, stranger, now + 1)).toMatchObject({ by: "account" });
    // The owner at their own address has tried nothing: their password is checked.
    expect(await lockAt(owner, ownerIp, now + 1)).toBeNull();

    // The owner mistypes once. With the account under attack they wait, from their own failure …
    const mistyped = now + 1;
    await fail(owner, ownerIp, mistyped);
    const lock = await lockAt(owner, ownerIp, mistyped + 1);
    expect(lock).toMatchObject({ by: "account-wide" });
    if (!lock) return;
    expect(lock.lockedUntil.getTime() - at(mistyped).getTime()).toBeLessThanOrEqual(account.capMs);
    // … and the stranger, guessing on meanwhile, does not move that moment.
    await fail(owner, strangers[1] as string, mistyped + 10_000);
    await fail(owner, strangers[2] as string, mistyped + 20_000);
    expect(await lockAt(owner, ownerIp, mistyped + account.capMs)).toBeNull();
  });

  it("from many addresses slow only the addresses that guessed, gently", async () => {
    const { email } = fresh();
    for (let i = 0; i < account.free; i++) await fail(email, `10.220.${counter}.${i + 1}`, i);
    const guesser = `10.220.${counter}.1`;
    expect(await lockAt(email, guesser, account.free)).toEqual({
      by: "account-wide",
      lockedUntil: at(account.baseMs),
    });
    expect(await lockAt(email, "10.221.0.1", account.free)).toBeNull();
  });
});

describe("lock entries and resets", () => {
  it("records each lock once, with the subject and until when, not each attempt", async () => {
    const { email, ip } = fresh();
    for (let i = 0; i < pair.free; i++) await fail(email, ip, i);
    let last = pair.free - 1;
    for (let k = 0; k < 3; k++) {
      last += backoffMs(k, pair.baseMs, pair.capMs);
      await fail(email, ip, last);
    }
    const entries = await entriesAbout("email", email);
    expect(entries).toEqual([
      {
        kind: "sign_in.locked",
        actor: "system:sign-in",
        data: {
          scope: "account_address",
          email,
          address: ip,
          failures: pair.free,
          until: at(pair.free - 1 + pair.baseMs).toISOString(),
        },
      },
    ]);
    expect((await verifyLedger(t.pool)).ok).toBe(true);
  });

  it("records an address lock once, though the lock lifts and closes again as failures age", async () => {
    const { ip } = fresh();
    for (let i = 0; i < address.limit; i++)
      await fail(`a${counter}-${i}@example.com`, ip, i * 1_000);
    // The oldest failure leaves the window: one more may try, fails, and the address is locked again.
    await fail(`a${counter}-again@example.com`, ip, address.windowMs + 1);
    expect(await lockAt("x@example.com", ip, address.windowMs + 2)).toMatchObject({
      by: "address",
    });
    expect(await entriesAbout("address", ip)).toEqual([
      {
        kind: "sign_in.locked",
        actor: "system:sign-in",
        data: {
          scope: "address",
          address: ip,
          failures: address.limit,
          until: at(address.windowMs).toISOString(),
        },
      },
    ]);
  });

  it("records the account-wide slowdown once", async () => {
    const { email } = fresh();
    for (let i = 0; i < account.free + 3; i++) await fail(email, `10.230.${counter}.${i + 1}`, i);
    const wide = (await entriesAbout("email", email)).filter((e) => e.data.scope === "account");
    expect(wide).toEqual([
      {
        kind: "sign_in.locked",
        actor: "system:sign-in",
        data: {
          scope: "account",
          email,
          failures: account.free,
          until: at(LOGIN_LIMITS.windowMs).toISOString(),
        },
      },
    ]);
  });

  it("an admin reset lifts the account's locks at every address and is recorded with who", async () => {
    const { email, ip } = fresh();
    for (let i = 0; i < pair.free; i++) await fail(email, ip, i);
    expect(await lockAt(email, ip, pair.free)).not.toBeNull();
    const reset = await unlockSignIn(
      t.pool,
      operator("user:admin@example.com"),
      { email: email.toUpperCase() },
      at(pair.free),
    );
    expect(reset).toMatchObject({ ok: true, value: { scope: "account", subject: email } });
    expect(await lockAt(email, ip, pair.free + 1)).toBeNull();
    // Counting starts again: ten more failures lock it again, and that is a new lock entry.
    for (let i = 0; i < pair.free; i++) await fail(email, ip, pair.free + 1 + i);
    expect(await lockAt(email, ip, 2 * pair.free + 1)).not.toBeNull();
    const kinds = (await entriesAbout("email", email)).map((e) => [e.kind, e.actor]);
    expect(kinds).toEqual([
      ["sign_in.locked", "system:sign-in"],
      ["sign_in.unlocked", "user:admin@example.com"],
      ["sign_in.locked", "system:sign-in"],
    ]);
  });

  it("an admin reset of an address lifts the address lock, not the accounts' own", async () => {
    const { email, ip } = fresh();
    for (let i = 0; i < pair.free; i++) await fail(email, ip, i);
    for (let i = pair.free; i < address.limit; i++)
      await fail(`b${counter}-${i}@example.com`, ip, i);
    expect(await lockAt("c@example.com", ip, address.limit)).toMatchObject({ by: "address" });
    const reset = await unlockSignIn(
      t.pool,
      operator("cli:root"),
      { address: ip },
      at(address.limit),
    );
    expect(reset).toMatchObject({ ok: true, value: { scope: "address", subject: ip } });
    expect(await lockAt("c@example.com", ip, address.limit + 1)).toBeNull();
    expect(await lockAt(email, ip, address.limit + 1)).toMatchObject({ by: "account" });
    const addressEntries = (await entriesAbout("address", ip)).filter(
      (e) => e.data.scope === "address",
    );
    expect(addressEntries.map((e) => [e.kind, e.actor])).toEqual([
      ["sign_in.locked", "system:sign-in"],
      ["sign_in.unlocked", "cli:root"],
    ]);
  });

  it("refuses a reset of something that is neither an email nor an address", async () => {
    const r = await unlockSignIn(t.pool, operator("cli:root"), { address: "10.0.0.300" });
    expect(r).toMatchObject({ ok: false, code: "invalid" });
  });
});

describe("unknown accounts", () => {
  it("lock exactly like real ones, whatever their case", async () => {
    const email = "Nobody.Here@Example.COM";
    const { ip } = fresh();
    const { rows } = await t.pool.query("select 1 from users where lower(email) = lower($1)", [
      email,
    ]);
    expect(rows).toHaveLength(0);
    for (let i = 0; i < pair.free; i++) {
      await fail(i % 2 === 0 ? email : email.toLowerCase(), ip, i * 1_000);
    }
    expect(await lockAt("nobody.here@example.com", ip, 10_000)).toMatchObject({ by: "account" });
    expect(await lockAt(email, ip, 10_000)).toMatchObject({ by: "account" });
    const stored = await t.pool.query<{ email: string }>(
      "select distinct email from login_attempts where ip = $1",
      [ip],
    );
    expect(stored.rows).toEqual([{ email: "nobody.here@example.com" }]);
  });
});
