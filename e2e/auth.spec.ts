// Sign-in, sign-out and who sees what, against the built app and its database: redirects for
// people who are not signed in, the sign-in form, sessions that end in the database, the
// brute-force lock over HTTP, role-dependent pages, and the security headers on every page.
import type { Page } from "@playwright/test";
import type pg from "pg";
import { operator } from "../lib/domain/access";
import { DEMO_PASSWORD, setUserDisabled } from "../lib/server/commands/users";
import {
  ANONYMOUS,
  asRole,
  createE2eUser,
  expect,
  SESSION_COOKIE,
  signInThroughForm,
  test,
} from "./fixtures";

const WRONG = "Wrong email or password, or the account is disabled.";
const SIGN_IN_URL = "/api/auth/sign-in/email";

async function anyTaskId(db: pg.Pool): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    "select id from tasks order by created_at limit 1",
  );
  const id = rows[0]?.id;
  if (!id) throw new Error("the e2e database was seeded without tasks");
  return id;
}

async function dashboardPages(db: pg.Pool): Promise<string[]> {
  return [
    "/",
    "/tasks",
    `/tasks/${await anyTaskId(db)}`,
    "/dead-letters",
    "/approvals",
    "/ledger",
    "/why",
    "/settings/retry-policies",
    "/settings/users",
    "/settings/tokens",
  ];
}

/** The form answered this attempt: its error, the email kept, the password cleared. */
async function expectRefused(page: Page, email: string) {
  await expect(page.getByRole("main").getByRole("alert")).toHaveText(WRONG);
  await expect(page.getByLabel("Email")).toHaveValue(email);
  await expect(page.getByLabel("Password")).toHaveValue("");
  await expect(page).toHaveURL((url) => url.pathname === "/sign-in");
}

async function sessionsOf(db: pg.Pool, userId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    "select count(*)::int as n from sessions where user_id = $1",
    [userId],
  );
  return rows[0]?.n ?? 0;
}

/** Where a redirect points, as path and `next`, or null when the response is not a redirect. */
function redirectOf(response: { status(): number; headers(): Record<string, string> }) {
  if (![303, 307, 308].includes(response.status())) return null;
  const location = new URL(response.headers().location ?? "", "http://app.invalid");
  return { path: location.pathname, next: location.searchParams.get("next") };
}

test.describe("signed out", () => {
  test.use(ANONYMOUS);

  test("every dashboard page redirects to sign-in and says where you were going", async ({
    request,
    db,
  }) => {
    for (const path of [...(await dashboardPages(db)), "/tasks?status=dead&agent=a%26b"]) {
      const response = await request.get(path, { maxRedirects: 0 });
      expect(redirectOf(response), path).toEqual({
        path: "/sign-in",
        next: path === "/" ? null : path,
      });
    }
  });

  test("after signing in you land where you were going, never on another site", async ({
    page,
  }) => {
    await page.goto("/ledger?kind=task.enqueued");
    await expect(page).toHaveURL(
      (url) =>
        url.pathname === "/sign-in" &&
        url.searchParams.get("next") === "/ledger?kind=task.enqueued",
    );
    await signInThroughForm(page, "ops@example.com", DEMO_PASSWORD);
    await expect(page).toHaveURL(
      (url) => url.pathname === "/ledger" && url.searchParams.get("kind") === "task.enqueued",
    );
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Ledger");

    // Signed in already, the sign-in page sends you on; an off-site `next` goes to the overview.
    for (const next of ["//evil.example/", "https://evil.example/", "/\\evil.example"]) {
      await page.goto(`/sign-in?next=${encodeURIComponent(next)}`);
      await expect(page, next).toHaveURL((url) => url.origin !== "https://evil.example");
      await expect(page).toHaveURL((url) => url.pathname === "/");
    }
  });

  test("a wrong password shows an error and makes no session; the right one signs in", async ({
    page,
    db,
  }) => {
    const user = await createE2eUser(db, "reviewer");
    await page.goto("/sign-in");
    await signInThroughForm(page, user.email, `${user.password}-wrong`);
    await expectRefused(page, user.email);
    expect((await page.context().cookies()).map((c) => c.name)).not.toContain(SESSION_COOKIE);
    expect(await sessionsOf(db, user.id)).toBe(0);

    // An account that does not exist gets the very same answer.
    await signInThroughForm(page, `nobody-${user.email}`, user.password);
    await expectRefused(page, `nobody-${user.email}`);

    await signInThroughForm(page, user.email, user.password);
    await expect(page).toHaveURL((url) => url.pathname === "/");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Overview");
    await expect(page.getByTestId("viewer-role")).toHaveText("reviewer");
    await expect(page.getByRole("banner")).toContainText(user.email);
    expect(await sessionsOf(db, user.id)).toBe(1);
    const cookie = (await page.context().cookies()).find((c) => c.name === SESSION_COOKIE);
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Lax", path: "/", secure: false });
  });

  test("signing out deletes the session, so a saved copy of the cookie is worthless", async ({
    page,
    db,
    playwright,
    baseURL,
  }) => {
    const user = await createE2eUser(db, "ops");
    await page.goto("/sign-in");
    await signInThroughForm(page, user.email, user.password);
    await expect(page).toHaveURL((url) => url.pathname === "/");

    const cookie = (await page.context().cookies()).find((c) => c.name === SESSION_COOKIE);
    if (!cookie) throw new Error("signing in set no session cookie");
    // The cookie is the session token, a dot, and its signature.
    const token = decodeURIComponent(cookie.value).split(".")[0];
    const { rows } = await db.query<{ user_id: string }>(
      "select user_id from sessions where token = $1",
      [token],
    );
    expect(rows).toEqual([{ user_id: user.id }]);

    const replay = await playwright.request.newContext({
      baseURL,
      extraHTTPHeaders: { cookie: `${SESSION_COOKIE}=${cookie.value}` },
    });
    try {
      const before = await replay.get("/tasks", { maxRedirects: 0 });
      expect(before.status()).toBe(200);

      await page.getByRole("button", { name: "Sign out" }).click();
      await expect(page).toHaveURL((url) => url.pathname === "/sign-in");
      expect((await page.context().cookies()).map((c) => c.name)).not.toContain(SESSION_COOKIE);
      const left = await db.query("select 1 from sessions where token = $1", [token]);
      expect(left.rowCount).toBe(0);

      const after = await replay.get("/tasks", { maxRedirects: 0 });
      expect(redirectOf(after)?.path).toBe("/sign-in");
      // The sign-in page, too, treats the replayed cookie as nobody: it shows the form.
      const signIn = await replay.get("/sign-in", { maxRedirects: 0 });
      expect(signIn.status()).toBe(200);
      expect(await signIn.text()).toContain('name="password"');
    } finally {
      await replay.dispose();
    }
  });

  test("disabling a person ends their open session at once", async ({ page, db }) => {
    const user = await createE2eUser(db, "reviewer");
    await page.goto("/sign-in");
    await signInThroughForm(page, user.email, user.password);
    await expect(page).toHaveURL((url) => url.pathname === "/");
    await page.goto("/dead-letters");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Dead letters");
    expect(await sessionsOf(db, user.id)).toBe(1);

    const disabled = await setUserDisabled(db, operator("system:e2e"), {
      userId: user.id,
      disabled: true,
    });
    expect(disabled).toMatchObject({ ok: true, value: { disabled: true } });
    expect(await sessionsOf(db, user.id)).toBe(0);

    // The very next navigation, a client-side one from the sidebar, ends on the sign-in page.
    await page
      .getByRole("navigation", { name: "Main" })
      .getByRole("link", { name: "Ledger" })
      .click();
    await expect(page).toHaveURL((url) => url.pathname === "/sign-in");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Sign in");

    // And the right password no longer opens a session.
    await signInThroughForm(page, user.email, user.password);
    await expectRefused(page, user.email);
    expect(await sessionsOf(db, user.id)).toBe(0);
  });

  test("ten wrong passwords lock the account: the right one is then refused with 429", async ({
    request,
    db,
  }) => {
    const user = await createE2eUser(db, "ops");
    for (let attempt = 1; attempt <= 10; attempt++) {
      const response = await request.post(SIGN_IN_URL, {
        data: { email: user.email, password: `wrong-${attempt}` },
      });
      expect(response.status(), `attempt ${attempt}`).toBe(401);
      expect(response.headers()["content-type"]).toContain("application/problem+json");
      expect(response.headers()["set-cookie"], `attempt ${attempt}`).toBeUndefined();
    }

    const locked = await request.post(SIGN_IN_URL, {
      data: { email: user.email, password: user.password },
    });
    expect(locked.status()).toBe(429);
    const retryAfter = Number(locked.headers()["retry-after"]);
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(await locked.json()).toMatchObject({
      type: "https://agent-ledger.dev/problems/sign-in-locked",
      status: 429,
    });
    expect(locked.headers()["set-cookie"]).toBeUndefined();
    expect(await sessionsOf(db, user.id)).toBe(0);
    const attempts = await db.query<{ ok: boolean; n: number }>(
      "select ok, count(*)::int as n from login_attempts where email = $1 group by ok",
      [user.email],
    );
    expect(attempts.rows).toEqual([{ ok: false, n: 10 }]);

    // The lock is the account's: someone else signs in from the same address as usual, and
    // gets a cookie scripts cannot read and other sites cannot send.
    const other = await createE2eUser(db, "ops");
    const ok = await request.post(SIGN_IN_URL, {
      data: { email: other.email, password: other.password },
    });
    expect(ok.status()).toBe(200);
    expect(await ok.json()).toEqual({ ok: true, userId: other.id });
    const setCookie = ok
      .headersArray()
      .filter((h) => h.name.toLowerCase() === "set-cookie")
      .map((h) => h.value)
      .find((v) => v.startsWith(`${SESSION_COOKIE}=`));
    expect(setCookie).toBeDefined();
    expect(setCookie).toMatch(/;\s*HttpOnly/i);
    expect(setCookie).toMatch(/;\s*SameSite=Lax/i);
    expect(setCookie).toMatch(/;\s*Path=\//i);
    expect(await sessionsOf(db, other.id)).toBe(1);
  });
});

const SETTINGS_LINKS = ["Retry policies", "Users", "API tokens"] as const;

const VISIBILITY = [
  { role: "ops", links: ["Retry policies"], forbidden: ["/settings/users", "/settings/tokens"] },
  {
    role: "reviewer",
    links: ["Retry policies"],
    forbidden: ["/settings/users", "/settings/tokens"],
  },
  { role: "admin", links: [...SETTINGS_LINKS], forbidden: [] },
] as const;

for (const { role, links, forbidden } of VISIBILITY) {
  test.describe(`as ${role}`, () => {
    test.use(asRole(role));

    test(`${role} sees the settings their role allows and is refused the rest`, async ({
      page,
    }) => {
      await page.goto("/");
      await expect(page.getByTestId("viewer-role")).toHaveText(role);
      const nav = page.getByRole("navigation", { name: "Main" });
      for (const link of SETTINGS_LINKS) {
        await expect(nav.getByRole("link", { name: link, exact: true }), link).toHaveCount(
          (links as readonly string[]).includes(link) ? 1 : 0,
        );
      }
      for (const path of ["/settings/retry-policies", "/settings/users", "/settings/tokens"]) {
        const response = await page.goto(path);
        if ((forbidden as readonly string[]).includes(path)) {
          expect(response?.status(), path).toBe(403);
          await expect(page.getByRole("heading", { level: 1 })).toHaveText(
            "Your role may not open this page",
          );
        } else {
          expect(response?.status(), path).toBe(200);
          await expect(page.getByRole("heading", { level: 1 })).not.toHaveText(
            "Your role may not open this page",
          );
        }
      }
    });
  });
}

test.describe("security headers", () => {
  test("pages carry a per-response nonce CSP and every script runs under it", async ({ page }) => {
    const problems: string[] = [];
    page.on("console", (msg) => {
      if (msg.type() === "error") problems.push(`console error: ${msg.text()}`);
    });
    page.on("pageerror", (err) => problems.push(`page error: ${err.message}`));
    await page.addInitScript(() => {
      const seen: string[] = [];
      (window as unknown as { __cspViolations: string[] }).__cspViolations = seen;
      document.addEventListener("securitypolicyviolation", (e) => {
        seen.push(`${e.violatedDirective} ${e.blockedURI}`);
      });
    });

    const response = await page.goto("/");
    if (!response) throw new Error("no response for /");
    expect(response.status()).toBe(200);
    const headers = response.headers();
    const csp = headers["content-security-policy"] ?? "";
    const nonce = /script-src [^;]*'nonce-([A-Za-z0-9+/=]+)'/.exec(csp)?.[1];
    expect(nonce, csp).toBeTruthy();
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("object-src 'none'");
    expect(csp).toContain("base-uri 'none'");
    expect(csp).not.toMatch(/script-src [^;]*'unsafe-(inline|eval)'/);
    expect(headers["x-frame-options"]).toBe("DENY");
    expect(headers["referrer-policy"]).toBe("same-origin");
    expect(headers["x-content-type-options"]).toBe("nosniff");

    const html = await response.text();
    const scripts = html.match(/<script\b[^>]*>/g) ?? [];
    expect(scripts.length).toBeGreaterThan(0);
    for (const tag of scripts) expect(tag).toContain(`nonce="${nonce}"`);

    // The app booted (its scripts ran under the policy) and nothing was refused on the way.
    await page.waitForFunction(() => Boolean((window as { next?: { version?: string } }).next));
    await page.waitForLoadState("networkidle");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Overview");
    expect(
      await page.evaluate(
        () => (window as unknown as { __cspViolations: string[] }).__cspViolations,
      ),
    ).toEqual([]);
    expect(problems).toEqual([]);

    // A fresh nonce every response: one that repeated could be learned and reused.
    const again = await page.request.get("/");
    const nonceAgain = /'nonce-([^']+)'/.exec(again.headers()["content-security-policy"] ?? "");
    expect(nonceAgain?.[1]).toBeTruthy();
    expect(nonceAgain?.[1]).not.toBe(nonce);
  });

  test.describe("signed out", () => {
    test.use(ANONYMOUS);

    test("the sign-in page has the same policy", async ({ request }) => {
      const response = await request.get("/sign-in");
      expect(response.status()).toBe(200);
      expect(response.headers()["content-security-policy"]).toMatch(
        /script-src [^;]*'nonce-[^']+'.*frame-ancestors 'none'/,
      );
      expect(response.headers()["x-frame-options"]).toBe("DENY");
    });
  });
});
