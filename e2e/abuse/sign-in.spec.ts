// Sign-in abuse over HTTP against the built app behind its web gate: a rotating X-Forwarded-For
// does not make one host many, so spraying accounts from it is locked after the address's
// allowance, and guessing one account from it is slowed, each recorded once in the ledger.
import type pg from "pg";
import { LOGIN_LIMITS } from "../../lib/auth/login-limit";
import { operator } from "../../lib/domain/access";
import { unlockSignIn } from "../../lib/server/commands/users";
import { createE2eUser, expect, randomWord, test } from "../fixtures";

const SIGN_IN_URL = "/api/auth/sign-in/email";
/** The gate sees every request of this suite from the loopback interface. */
const ADDRESS = "127.0.0.1";

async function lockEntries(db: pg.Pool, scope: string, since: number) {
  const { rows } = await db.query<{ data: Record<string, unknown> }>(
    `select data from ledger_entries
      where stream = 'system' and kind = 'sign_in.locked' and data->>'scope' = $1 and seq > $2
      order by seq`,
    [scope, since],
  );
  return rows.map((r) => r.data);
}

async function systemHead(db: pg.Pool): Promise<number> {
  const { rows } = await db.query<{ seq: number | null }>(
    "select max(seq)::int as seq from ledger_entries where stream = 'system'",
  );
  return rows[0]?.seq ?? 0;
}

// Start from an address with no failures counted, and leave it so: every other spec signs in
// from this address too.
test.beforeAll(async ({ db }) => {
  const r = await unlockSignIn(db, operator("system:e2e-abuse"), { address: ADDRESS });
  if (!r.ok) throw new Error(r.message);
});
test.afterAll(async ({ db }) => {
  const r = await unlockSignIn(db, operator("system:e2e-abuse"), { address: ADDRESS });
  if (!r.ok) throw new Error(r.message);
});

test("a rotating X-Forwarded-For does not escape the address limit", async ({ request, db }) => {
  test.setTimeout(180_000);
  const head = await systemHead(db);
  const spray = `spray-${randomWord()}`;
  for (let i = 0; i < LOGIN_LIMITS.address.limit; i++) {
    const response = await request.post(SIGN_IN_URL, {
      headers: { "x-forwarded-for": `203.0.${Math.floor(i / 250)}.${(i % 250) + 1}` },
      data: { email: `${spray}-${i}@example.com`, password: "not the password" },
    });
    expect(response.status(), `attempt ${i + 1}`).toBe(401);
  }

  // Even someone with the right password is refused from this address now.
  const user = await createE2eUser(db, "ops");
  const locked = await request.post(SIGN_IN_URL, {
    headers: { "x-forwarded-for": "198.51.100.77" },
    data: { email: user.email, password: user.password },
  });
  expect(locked.status()).toBe(429);
  expect(locked.headers()["content-type"]).toContain("application/problem+json");
  const retryAfter = Number(locked.headers()["retry-after"]);
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(LOGIN_LIMITS.address.windowMs / 1000);
  expect(await locked.json()).toMatchObject({
    type: "https://agent-ledger.dev/problems/sign-in-locked",
    status: 429,
  });
  expect(locked.headers()["set-cookie"]).toBeUndefined();

  // Every failure counted against the one address the gate saw, none against a header value.
  const { rows } = await db.query<{ ip: string; n: number }>(
    "select host(ip) as ip, count(*)::int as n from login_attempts where email like $1 group by ip",
    [`${spray}-%`],
  );
  expect(rows).toEqual([{ ip: ADDRESS, n: LOGIN_LIMITS.address.limit }]);
  // The lock is one system entry, with the address and until when.
  const entries = await lockEntries(db, "address", head);
  expect(entries).toEqual([
    {
      scope: "address",
      address: ADDRESS,
      failures: LOGIN_LIMITS.address.limit,
      until: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    },
  ]);

  // An admin lifts it, and the person signs in.
  const lifted = await unlockSignIn(db, operator("system:e2e-abuse"), { address: ADDRESS });
  expect(lifted.ok).toBe(true);
  const ok = await request.post(SIGN_IN_URL, {
    data: { email: user.email, password: user.password },
  });
  expect(ok.status()).toBe(200);
});

test("guessing one account behind rotating X-Forwarded-For values is slowed after ten", async ({
  request,
  db,
}) => {
  const head = await systemHead(db);
  const user = await createE2eUser(db, "admin");
  for (let i = 0; i < LOGIN_LIMITS.pair.free; i++) {
    const response = await request.post(SIGN_IN_URL, {
      headers: { "x-forwarded-for": `192.0.2.${i + 1}` },
      data: { email: user.email, password: `guess-${i}` },
    });
    expect(response.status(), `guess ${i + 1}`).toBe(401);
  }
  const slowed = await request.post(SIGN_IN_URL, {
    headers: { "x-forwarded-for": "192.0.2.200" },
    data: { email: user.email, password: user.password },
  });
  expect(slowed.status()).toBe(429);
  const retryAfter = Number(slowed.headers()["retry-after"]);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(LOGIN_LIMITS.pair.baseMs / 1000);
  expect(await lockEntries(db, "account_address", head)).toEqual([
    {
      scope: "account_address",
      email: user.email,
      address: ADDRESS,
      failures: LOGIN_LIMITS.pair.free,
      until: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    },
  ]);
  // The admin whose account it was is let in by another admin's reset.
  const lifted = await unlockSignIn(db, operator("system:e2e-abuse"), { email: user.email });
  expect(lifted.ok).toBe(true);
  const ok = await request.post(SIGN_IN_URL, {
    data: { email: user.email, password: user.password },
  });
  expect(ok.status()).toBe(200);
});

test("an admin's 'Unlock sign-in' on the users page lets the owner straight back in", async ({
  page,
  request,
  db,
}) => {
  const head = await systemHead(db);
  const user = await createE2eUser(db, "reviewer");
  for (let i = 0; i < LOGIN_LIMITS.pair.free; i++) {
    const response = await request.post(SIGN_IN_URL, {
      data: { email: user.email, password: `guess-${i}` },
    });
    expect(response.status(), `guess ${i + 1}`).toBe(401);
  }
  const before = await request.post(SIGN_IN_URL, {
    data: { email: user.email, password: user.password },
  });
  expect(before.status()).toBe(429);

  await page.goto("/settings/users");
  const row = page.locator(`tr[data-user-email="${user.email}"]`);
  await row.getByRole("button", { name: "Unlock sign-in" }).click();
  await expect(row).toContainText(`Let ${user.email} try their password again now`);
  await row.getByRole("button", { name: "Yes, unlock" }).click();
  await expect(row.getByRole("status")).toContainText("Failed sign-ins no longer count.");

  const { rows } = await db.query<{ actor: string; data: unknown }>(
    "select actor, data from ledger_entries where stream = 'system' and kind = 'sign_in.unlocked' and seq > $1",
    [head],
  );
  expect(rows).toEqual([
    { actor: "user:admin@example.com", data: { scope: "account", email: user.email } },
  ]);
  const after = await request.post(SIGN_IN_URL, {
    data: { email: user.email, password: user.password },
  });
  expect(after.status()).toBe(200);
});
