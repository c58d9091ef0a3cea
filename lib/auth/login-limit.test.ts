// The brute-force lock against real rows, with the clock passed in: 10 failures in a minute lock
// the account until the 10th-latest failure is a minute old; a success starts the count again;
// an address has its own, larger allowance; unknown emails lock exactly like real ones.
import { describe, expect, it } from "vitest";
import { setUpTestDatabase } from "../../db/testing/database";
import { LOGIN_LIMITS, loginLock, recordLoginAttempt } from "./login-limit";

const t = await setUpTestDatabase("login-limit");

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

describe("login lock", () => {
  it("locks the 11th attempt after 10 failures in a minute, before any password check", async () => {
    const { email, ip } = fresh();
    for (let i = 0; i < 9; i++) await fail(email, ip, i * 1_000);
    // Nine failures: the 10th attempt may still try.
    expect(await loginLock(t.pool, { email, ip, now: at(9_500) })).toBeNull();
    await fail(email, ip, 9_500);
    // The 11th attempt is refused before any password is checked.
    const lock = await loginLock(t.pool, { email, ip, now: at(10_000) });
    expect(lock).toEqual({ by: "account", lockedUntil: at(60_000) });
    // The address has not reached its allowance; it is the account that is locked.
    expect(
      await loginLock(t.pool, { email: "someone-else@example.com", ip, now: at(10_000) }),
    ).toBeNull();
  });

  it("lifts once the 10th-latest failure is 60 s old", async () => {
    const { email, ip } = fresh();
    for (let i = 0; i < 12; i++) await fail(email, ip, i * 1_000);
    // Twelve failures at 0 … 11 s: the 10th-latest is the one at 2 s.
    expect(await loginLock(t.pool, { email, ip, now: at(11_500) })).toEqual({
      by: "account",
      lockedUntil: at(62_000),
    });
    expect(await loginLock(t.pool, { email, ip, now: at(61_999) })).not.toBeNull();
    expect(await loginLock(t.pool, { email, ip, now: at(62_000) })).toBeNull();
    // One more failure after the lift is the 10th in the window again (3 … 11 s and 62.5 s).
    await fail(email, ip, 62_500);
    expect(await loginLock(t.pool, { email, ip, now: at(62_600) })).toEqual({
      by: "account",
      lockedUntil: at(63_000),
    });
  });

  it("does not count failures that left the window", async () => {
    const { email, ip } = fresh();
    // Ten failures 7 s apart span 63 s: never ten inside one minute.
    for (let i = 0; i < 10; i++) await fail(email, ip, i * 7_000);
    expect(await loginLock(t.pool, { email, ip, now: at(63_000) })).toBeNull();
    // Failures in the future of `now` do not count either.
    expect(await loginLock(t.pool, { email, ip, now: at(30_000) })).toBeNull();
  });

  it("starts counting again after a success", async () => {
    const { email, ip } = fresh();
    for (let i = 0; i < 9; i++) await fail(email, ip, i * 1_000);
    await recordLoginAttempt(t.pool, { email, ip, ok: true, now: at(9_000) });
    for (let i = 0; i < 9; i++) await fail(email, ip, 10_000 + i * 1_000);
    // 18 failures in the minute, but only 9 since the success.
    expect(await loginLock(t.pool, { email, ip, now: at(19_000) })).toBeNull();
    await fail(email, ip, 19_000);
    expect(await loginLock(t.pool, { email, ip, now: at(19_500) })).toEqual({
      by: "account",
      lockedUntil: at(70_000),
    });
  });

  it("locks an address after 50 failures across accounts, and only that address", async () => {
    const { ip } = fresh();
    const other = fresh();
    for (let i = 0; i < LOGIN_LIMITS.perAddress - 1; i++) {
      await fail(`spray${i}@example.com`, ip, i * 100);
    }
    expect(await loginLock(t.pool, { email: "new@example.com", ip, now: at(5_000) })).toBeNull();
    await fail("spray-last@example.com", ip, 4_950);
    // No single account has more than one failure, yet the address is locked …
    expect(await loginLock(t.pool, { email: "new@example.com", ip, now: at(5_000) })).toEqual({
      by: "address",
      lockedUntil: at(60_000),
    });
    // … for every account, but not from another address, and not without an address.
    expect(
      await loginLock(t.pool, { email: "spray0@example.com", ip: other.ip, now: at(5_000) }),
    ).toBeNull();
    expect(
      await loginLock(t.pool, { email: "spray0@example.com", ip: null, now: at(5_000) }),
    ).toBeNull();
    expect(await loginLock(t.pool, { email: "new@example.com", ip, now: at(60_000) })).toBeNull();
  });

  it("locks unknown emails too, whatever their case", async () => {
    const email = "Nobody.Here@Example.COM";
    const { ip } = fresh();
    const { rows } = await t.pool.query("select 1 from users where lower(email) = lower($1)", [
      email,
    ]);
    expect(rows).toHaveLength(0);
    for (let i = 0; i < 10; i++) {
      await fail(i % 2 === 0 ? email : email.toLowerCase(), ip, i * 1_000);
    }
    expect(
      await loginLock(t.pool, { email: "nobody.here@example.com", ip, now: at(10_000) }),
    ).toMatchObject({ by: "account" });
    expect(await loginLock(t.pool, { email, ip, now: at(10_000) })).toMatchObject({
      by: "account",
    });
    const stored = await t.pool.query<{ email: string }>(
      "select distinct email from login_attempts where ip = $1",
      [ip],
    );
    expect(stored.rows).toEqual([{ email: "nobody.here@example.com" }]);
  });
});
