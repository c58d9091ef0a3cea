// `agent-ledger users unlock` as a script sees it: a real process against a real database. The
// owner locked by someone's guesses gets in again, and the system stream says who let them.
import { describe, expect, it } from "vitest";
import { setUpTestDatabase } from "../../db/testing/database";
import { LOGIN_LIMITS, loginLock, recordLoginAttempt } from "../../lib/auth/login-limit";
import { ACTOR, cliOn, SLOW } from "./testing";

const t = await setUpTestDatabase("cli-unlock");
const cli = cliOn(t);

async function lastSystemEntry() {
  const { rows } = await t.pool.query<{ kind: string; actor: string; data: unknown }>(
    "select kind, actor, data from ledger_entries where stream = 'system' order by seq desc limit 1",
  );
  return rows[0];
}

// The CLI stamps its reset with the real clock, so the failures happen just before it.
async function lockOut(email: string, ip: string, count: number): Promise<void> {
  const start = Date.now() - 1_000;
  for (let i = 0; i < count; i++) {
    await recordLoginAttempt(t.pool, { email, ip, ok: false, now: new Date(start + i) });
  }
}

describe("users unlock", SLOW, () => {
  it("lifts an account's lock from every address and records who", async () => {
    const email = "owner@example.com";
    await lockOut(email, "203.0.113.1", LOGIN_LIMITS.pair.free);
    expect(await loginLock(t.pool, { email, ip: "203.0.113.1", now: new Date() })).not.toBeNull();
    const r = cli(["users", "unlock", "Owner@Example.com"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("Sign-in unlocked for owner@example.com, from every address.\n");
    expect(await loginLock(t.pool, { email, ip: "203.0.113.1", now: new Date() })).toBeNull();
    expect(await lastSystemEntry()).toEqual({
      kind: "sign_in.unlocked",
      actor: ACTOR,
      data: { scope: "account", email },
    });
  });

  it("lifts an address's lock with --address, and says so in JSON", async () => {
    const ip = "203.0.113.2";
    for (let i = 0; i < LOGIN_LIMITS.address.limit; i++) {
      await recordLoginAttempt(t.pool, {
        email: `spray${i}@example.com`,
        ip,
        ok: false,
        now: new Date(Date.now() - 60_000 + i),
      });
    }
    const probe = { email: "x@example.com", ip, now: new Date() };
    expect(await loginLock(t.pool, probe)).toMatchObject({ by: "address" });
    const r = cli(["users", "unlock", "--address", ip, "--json"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ scope: "address", subject: ip });
    expect(await loginLock(t.pool, { ...probe, now: new Date() })).toBeNull();
    expect(await lastSystemEntry()).toMatchObject({ kind: "sign_in.unlocked", actor: ACTOR });
  });

  it("is a usage error without an email, or with something that is not one", async () => {
    const before = await lastSystemEntry();
    for (const args of [[], ["not-an-email"], ["--address", "10.0.0.300"]]) {
      const r = cli(["users", "unlock", ...args]);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr, args.join(" ")).toMatch(/agent-ledger users unlock/);
    }
    expect(await lastSystemEntry()).toEqual(before);
  });
});
