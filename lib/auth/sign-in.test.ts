// Password sign-in end to end below HTTP: better-auth checking real passwords on real Postgres,
// behind our limits. The address is the gate's header only; X-Forwarded-For does nothing; a
// stranger's guesses leave the owner at another address alone; answers never tell whether an
// account exists.
import type pg from "pg";
import { describe, expect, it } from "vitest";
import { setUpTestDatabase } from "../../db/testing/database";
import { operator } from "../domain/access";
import { CLIENT_ADDRESS_HEADER } from "../domain/client-address";

// lib/env caches the environment on first use (creating a pool may already read it), so the
// auth settings go in before anything else.
Object.assign(process.env, {
  AUTH_SECRET: "sign-in-test-secret-that-is-long-enough-0123",
  AUTH_BASE_URL: "http://127.0.0.1:3998",
});
const t = await setUpTestDatabase("sign-in");
// The web process's pool (lib/server/db.ts keeps it on globalThis) is this file's database.
(globalThis as typeof globalThis & { __agentLedgerPool?: pg.Pool }).__agentLedgerPool = t.pool;
const { signInWithPassword, clientIp } = await import("./sign-in");
const { LOGIN_LIMITS } = await import("./login-limit");
const { createUser } = await import("../server/commands/users");

const PASSWORD = "the owner's long password";
let counter = 0;
async function owner(): Promise<string> {
  counter += 1;
  const email = `owner${counter}@example.com`;
  const r = await createUser(t.pool, operator("test"), {
    email,
    role: "admin",
    password: PASSWORD,
  });
  if (!r.ok) throw new Error(r.message);
  return email;
}

const from = (address: string | null, extra: Record<string, string> = {}) =>
  new Headers({ ...(address ? { [CLIENT_ADDRESS_HEADER]: address } : {}), ...extra });

describe("clientIp", () => {
  it("reads the gate's header and never X-Forwarded-For", () => {
    expect(clientIp(from("203.0.113.9", { "x-forwarded-for": "1.2.3.4" }))).toBe("203.0.113.9");
    expect(clientIp(from(null, { "x-forwarded-for": "1.2.3.4" }))).toBeNull();
    expect(clientIp(from("2001:db8::1"))).toBe("2001:db8::1");
    expect(clientIp(from("not an address"))).toBeNull();
  });
});

describe("signInWithPassword", () => {
  it("a rotating X-Forwarded-For does not escape the address limit", async () => {
    const address = "198.51.100.20";
    const limit = LOGIN_LIMITS.address.limit;
    for (let i = 0; i < limit; i++) {
      const r = await signInWithPassword(
        { email: `spray${i}@example.com`, password: "wrong password" },
        from(address, { "x-forwarded-for": `10.${i}.0.1` }),
      );
      expect(r, `attempt ${i + 1}`).toMatchObject({ ok: false, status: 401 });
    }
    const email = await owner();
    const locked = await signInWithPassword(
      { email, password: PASSWORD },
      from(address, { "x-forwarded-for": "10.250.0.1" }),
    );
    expect(locked).toMatchObject({ ok: false, status: 429 });
    if (locked.ok) return;
    expect(locked.message).toMatch(/from this address/);
    expect(locked.retryAfterS).toBeGreaterThan(0);
    expect(locked.retryAfterS).toBeLessThanOrEqual(LOGIN_LIMITS.address.windowMs / 1000);
    // Every failure was counted against the one address, none against a header value.
    const { rows } = await t.pool.query<{ ip: string; n: number }>(
      "select host(ip) as ip, count(*)::int as n from login_attempts where email like 'spray%' group by ip",
    );
    expect(rows).toEqual([{ ip: address, n: limit }]);
  });

  it("the owner at another address signs in while a stranger's guesses are refused", async () => {
    const email = await owner();
    const stranger = "198.51.100.30";
    for (let i = 0; i < LOGIN_LIMITS.pair.free; i++) {
      const r = await signInWithPassword({ email, password: `guess ${i}` }, from(stranger));
      expect(r).toMatchObject({ ok: false, status: 401 });
    }
    // The stranger is slowed, even with the right password …
    const slowed = await signInWithPassword({ email, password: PASSWORD }, from(stranger));
    expect(slowed).toMatchObject({ ok: false, status: 429 });
    if (slowed.ok) return;
    expect(slowed.retryAfterS).toBeGreaterThan(0);
    expect(slowed.retryAfterS).toBeLessThanOrEqual(LOGIN_LIMITS.pair.baseMs / 1000);
    // … the owner is not.
    const signedIn = await signInWithPassword({ email, password: PASSWORD }, from("192.0.2.44"));
    expect(signedIn).toMatchObject({ ok: true });
  });

  it("answers an unknown account exactly like a known one", async () => {
    const email = await owner();
    const known: unknown[] = [];
    const unknown: unknown[] = [];
    // Seconds to wait depend on the clock; everything else must be the same.
    const shape = (r: Awaited<ReturnType<typeof signInWithPassword>>) =>
      r.ok
        ? r
        : { ...r, message: r.message.replace(/\d+/g, "N"), retryAfterS: r.retryAfterS && "N" };
    for (let i = 0; i <= LOGIN_LIMITS.pair.free; i++) {
      known.push(shape(await signInWithPassword({ email, password: "nope" }, from("192.0.2.50"))));
      unknown.push(
        shape(
          await signInWithPassword(
            { email: `ghost${counter}@example.com`, password: "nope" },
            from("192.0.2.51"),
          ),
        ),
      );
    }
    expect(unknown).toEqual(known);
    expect(known.at(-1)).toMatchObject({ status: 429 });
    expect(known.at(0)).toMatchObject({ status: 401 });
  });
});
