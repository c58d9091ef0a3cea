// Single sign-on end to end: our /api/auth route and better-auth against a real (fake) OpenID
// provider over HTTP, with real Postgres. Each sign-in is the browser's three hops: start at
// POST /api/auth/sign-in/social, follow the IdP's redirect, come back to the callback with the
// code, the state and the state cookie.
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { setUpTestDatabase } from "../../db/testing/database";
import { operator } from "../domain/access";
import { type FakeOidcUser, startFakeOidc } from "./testing/fake-oidc";

const t = await setUpTestDatabase("oidc");
const CLIENT = { clientId: "agent-ledger", clientSecret: "fake-idp-client-secret" };
const fake = await startFakeOidc(CLIENT);
const BASE = "http://127.0.0.1:3999";

// lib/env caches the environment and lib/server/db the pool on first use, so both are set up
// before the first import that reads them.
Object.assign(process.env, {
  DATABASE_URL: t.appUrl,
  AUTH_SECRET: "oidc-test-secret-that-is-long-enough-0123456789",
  AUTH_BASE_URL: BASE,
  OIDC_ISSUER: fake.issuer,
  OIDC_CLIENT_ID: CLIENT.clientId,
  OIDC_CLIENT_SECRET: CLIENT.clientSecret,
  OIDC_GROUPS_CLAIM: "groups",
  OIDC_ROLE_MAP: "ledger-admins=admin,ledger-reviewers=reviewer,ledger-ops=ops",
});
const route = await import("../../app/api/auth/[...all]/route");
const { getAuth, ssoRedirectUri, startSsoSignIn } = await import("./auth");
const { viewerFromSession } = await import("./viewer");
const { createUser, setUserDisabled } = await import("../server/commands/users");
const { getPool } = await import("../server/db");

afterAll(async () => {
  await fake.close();
  await getPool().end();
});

beforeEach(() => {
  fake.groupsIn = "id_token";
});

type Cookies = Map<string, string>;

function setCookies(response: Response): Cookies {
  const jar: Cookies = new Map();
  for (const line of response.headers.getSetCookie()) {
    const [pair = ""] = line.split(";");
    const eq = pair.indexOf("=");
    jar.set(pair.slice(0, eq), pair.slice(eq + 1));
  }
  return jar;
}

const cookieHeader = (jar: Cookies) => [...jar].map(([k, v]) => `${k}=${v}`).join("; ");

function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  return route.POST(
    new Request(`${BASE}/api/auth${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: BASE, ...headers },
      body: JSON.stringify(body),
    }),
  );
}

type SignIn = {
  /** Where the callback sends the browser: the callbackURL, or the sign-in page with ?error. */
  location: URL;
  /** The session cookie's value, if the callback set one. */
  session: string | undefined;
};

/** The browser's round trip for whoever the IdP says is signing in. */
async function ssoSignIn(user: FakeOidcUser | null, callbackURL = "/tasks"): Promise<SignIn> {
  fake.nextUser = user;
  const start = await post("/sign-in/social", { provider: "sso", callbackURL });
  expect(start.status).toBe(200);
  const { url } = (await start.json()) as { url: string };
  expect(start.headers.get("location")).toBe(url);
  const jar = setCookies(start);

  const idp = await fetch(url, { redirect: "manual" });
  expect(idp.status).toBe(302);
  const back = new URL(idp.headers.get("location") ?? "");
  expect(`${back.origin}${back.pathname}`).toBe(ssoRedirectUri());

  const callback = await route.GET(new Request(back, { headers: { cookie: cookieHeader(jar) } }));
  expect(callback.status).toBe(302);
  return {
    location: new URL(callback.headers.get("location") ?? "", BASE),
    session: setCookies(callback).get("agent-ledger.session_token") || undefined,
  };
}

async function userRow(email: string) {
  const { rows } = await t.pool.query<{ id: string; role: string; disabled: boolean }>(
    "select id, role, disabled from users where lower(email) = lower($1)",
    [email],
  );
  return rows[0];
}

async function sessionCount(userId: string): Promise<number> {
  const { rows } = await t.pool.query<{ n: number }>(
    "select count(*)::int as n from sessions where user_id = $1",
    [userId],
  );
  return rows[0]?.n ?? 0;
}

type RoleChange = { role?: string };
type SystemEntry = {
  kind: string;
  actor: string;
  data: { before?: RoleChange; after?: RoleChange } & Record<string, unknown>;
};

async function systemEntries(userId: string) {
  const { rows } = await t.pool.query<SystemEntry>(
    "select kind, actor, data from ledger_entries where stream = 'system' and data->>'userId' = $1 order by seq",
    [userId],
  );
  return rows;
}

function viewerOf(session: string | undefined) {
  return viewerFromSession(new Headers({ cookie: `agent-ledger.session_token=${session}` }));
}

describe("OIDC single sign-on", () => {
  it("creates the account with the role its group maps to, signs the person in, and records it", async () => {
    const { location, session } = await ssoSignIn({
      sub: "idp-rui",
      email: "Rui@Corp.Example",
      name: "Rui Reviewer",
      groups: ["everyone", "ledger-reviewers"],
    });
    expect(location.toString()).toBe(`${BASE}/tasks`);
    expect(session).toBeTruthy();

    const user = await userRow("rui@corp.example");
    expect(user).toMatchObject({ role: "reviewer", disabled: false });
    const viewer = await viewerOf(session);
    expect(viewer).toMatchObject({ kind: "user", email: "rui@corp.example", role: "reviewer" });

    const { rows: accounts } = await t.pool.query(
      "select provider_id, account_id from accounts where user_id = $1",
      [user?.id],
    );
    expect(accounts).toEqual([{ provider_id: "sso", account_id: "idp-rui" }]);
    expect(await systemEntries(user?.id ?? "")).toEqual([
      {
        kind: "user.created",
        actor: "sso",
        data: {
          userId: user?.id,
          email: "rui@corp.example",
          name: "Rui Reviewer",
          role: "reviewer",
        },
      },
    ]);

    // What the client sent the IdP: the code flow with PKCE (S256) and a nonce, to our callback.
    const authorize = fake.authorizeRequests.at(-1);
    expect(authorize).toMatchObject({
      response_type: "code",
      client_id: CLIENT.clientId,
      redirect_uri: `${BASE}/api/auth/callback/sso`,
      code_challenge_method: "S256",
    });
    expect(authorize?.scope?.split(" ")).toEqual(
      expect.arrayContaining(["openid", "email", "profile"]),
    );
    expect(authorize?.nonce).toBeTruthy();
    expect(fake.tokenResults.at(-1)).toEqual({ ok: true });
  });

  it("gives the strongest role when several groups map", async () => {
    const { session } = await ssoSignIn({
      sub: "idp-ada",
      email: "ada@corp.example",
      name: "Ada",
      groups: ["ledger-reviewers", "ledger-admins", "ledger-ops"],
    });
    expect(await userRow("ada@corp.example")).toMatchObject({ role: "admin" });
    expect(await viewerOf(session)).toMatchObject({ role: "admin" });
  });

  it("reads a groups claim sent as one string", async () => {
    await ssoSignIn({ sub: "idp-olu", email: "olu@corp.example", groups: "ledger-ops" });
    expect(await userRow("olu@corp.example")).toMatchObject({ role: "ops" });
  });

  it("reads the groups from userinfo when the ID token does not carry them", async () => {
    fake.groupsIn = "userinfo";
    const before = fake.userinfoCalls;
    const { session } = await ssoSignIn({
      sub: "idp-uma",
      email: "uma@corp.example",
      groups: ["ledger-reviewers"],
    });
    expect(fake.userinfoCalls).toBe(before + 1);
    expect(session).toBeTruthy();
    expect(await userRow("uma@corp.example")).toMatchObject({ role: "reviewer" });
  });

  it("refuses a person in no mapped group: no account, no session, an error on the sign-in page", async () => {
    const sessionsBefore = await t.pool.query("select count(*)::int as n from sessions");
    for (const groups of [["marketing", "everyone"], undefined]) {
      const { location, session } = await ssoSignIn({
        sub: "idp-mallory",
        email: "mallory@corp.example",
        groups,
      });
      expect(location.pathname).toBe("/sign-in");
      expect(location.searchParams.get("error")).toBe("no_role");
      expect(session).toBeUndefined();
    }
    expect(await userRow("mallory@corp.example")).toBeUndefined();
    const { rows: accounts } = await t.pool.query(
      "select 1 from accounts where provider_id = 'sso' and account_id = 'idp-mallory'",
    );
    expect(accounts).toEqual([]);
    const sessionsAfter = await t.pool.query("select count(*)::int as n from sessions");
    expect(sessionsAfter.rows).toEqual(sessionsBefore.rows);
  });

  it("follows the IdP's groups at every sign-in and records each role change by sso", async () => {
    const person = { sub: "idp-sam", email: "sam@corp.example", name: "Sam" };
    await ssoSignIn({ ...person, groups: ["ledger-reviewers"] });
    const user = await userRow(person.email);
    expect(user?.role).toBe("reviewer");

    const promoted = await ssoSignIn({ ...person, name: "Sam Admin", groups: ["ledger-admins"] });
    expect(await userRow(person.email)).toMatchObject({ role: "admin" });
    expect(await viewerOf(promoted.session)).toMatchObject({ role: "admin", name: "Sam Admin" });

    await ssoSignIn({ ...person, groups: ["ledger-admins"] }); // unchanged: nothing recorded
    const demoted = await ssoSignIn({ ...person, groups: ["ledger-ops"] });
    expect(await viewerOf(demoted.session)).toMatchObject({ role: "ops" });

    const entries = await systemEntries(user?.id ?? "");
    expect(entries.map((e) => [e.kind, e.actor, e.data.before?.role, e.data.after?.role])).toEqual([
      ["user.created", "sso", undefined, undefined],
      ["user.role_changed", "sso", "reviewer", "admin"],
      ["user.role_changed", "sso", "admin", "ops"],
    ]);

    // Out of every mapped group: refused, and the role stays what it was.
    const removed = await ssoSignIn({ ...person, groups: ["alumni"] });
    expect(removed.location.searchParams.get("error")).toBe("no_role");
    expect(removed.session).toBeUndefined();
    expect(await userRow(person.email)).toMatchObject({ role: "ops" });
    // One account per IdP subject, however many sign-ins.
    const { rows } = await t.pool.query<{ n: number }>(
      "select count(*)::int as n from accounts where user_id = $1",
      [user?.id],
    );
    expect(rows[0]?.n).toBe(1);
  });

  it("refuses a disabled person at sign-in, before any role change", async () => {
    const person = { sub: "idp-dee", email: "dee@corp.example" };
    const first = await ssoSignIn({ ...person, groups: ["ledger-reviewers"] });
    const user = await userRow(person.email);
    expect(first.session).toBeTruthy();

    const disabled = await setUserDisabled(t.pool, operator("user:admin@example.com"), {
      userId: user?.id ?? "",
      disabled: true,
    });
    expect(disabled.ok).toBe(true);
    expect(await viewerOf(first.session)).toBeNull();

    const again = await ssoSignIn({ ...person, groups: ["ledger-admins"] });
    expect(again.location.pathname).toBe("/sign-in");
    expect(again.location.searchParams.get("error")).toBe("account_disabled");
    expect(again.session).toBeUndefined();
    expect(await sessionCount(user?.id ?? "")).toBe(0);
    expect(await userRow(person.email)).toMatchObject({ role: "reviewer", disabled: true });
  });

  it("links an existing password account with the same email, and the IdP decides its role", async () => {
    const created = await createUser(t.pool, operator("user:admin@example.com"), {
      email: "pat@corp.example",
      role: "ops",
      password: "a-long-enough-password",
    });
    if (!created.ok) throw new Error(created.message);
    const { session } = await ssoSignIn({
      sub: "idp-pat",
      email: "pat@corp.example",
      groups: ["ledger-reviewers"],
    });
    expect(await viewerOf(session)).toMatchObject({ id: created.value.id, role: "reviewer" });
    const { rows } = await t.pool.query<{ provider_id: string }>(
      "select provider_id from accounts where user_id = $1 order by provider_id",
      [created.value.id],
    );
    expect(rows.map((r) => r.provider_id)).toEqual(["credential", "sso"]);
  });

  it("does not link when the IdP has not verified the email", async () => {
    const created = await createUser(t.pool, operator("user:admin@example.com"), {
      email: "vic@corp.example",
      role: "ops",
      password: "a-long-enough-password",
    });
    if (!created.ok) throw new Error(created.message);
    const { location, session } = await ssoSignIn({
      sub: "idp-vic",
      email: "vic@corp.example",
      emailVerified: false,
      groups: ["ledger-admins"],
    });
    expect(location.searchParams.get("error")).toBe("account_not_linked");
    expect(session).toBeUndefined();
    expect(await userRow("vic@corp.example")).toMatchObject({ role: "ops" });
  });

  it("keeps the last active admin an admin when the IdP would demote them", async () => {
    await t.pool.query("update users set role = 'reviewer' where role = 'admin'");
    const person = { sub: "idp-last", email: "last@corp.example" };
    await ssoSignIn({ ...person, groups: ["ledger-admins"] });
    const { session } = await ssoSignIn({ ...person, groups: ["ledger-reviewers"] });
    expect(await viewerOf(session)).toMatchObject({ role: "admin" });
  });

  it("refuses a callback without the state cookie, and a replayed code", async () => {
    fake.nextUser = { sub: "idp-eve", email: "eve@corp.example", groups: ["ledger-admins"] };
    const start = await post("/sign-in/social", { callbackURL: "/" });
    const { url } = (await start.json()) as { url: string };
    const back = (await fetch(url, { redirect: "manual" })).headers.get("location") ?? "";

    const noCookie = await route.GET(new Request(back));
    expect(noCookie.status).toBe(302);
    expect(new URL(noCookie.headers.get("location") ?? "").searchParams.get("error")).toBe(
      "state_mismatch",
    );
    expect(setCookies(noCookie).get("agent-ledger.session_token") || undefined).toBeUndefined();
    expect(await userRow("eve@corp.example")).toBeUndefined();

    // The real browser's callback succeeds once; the same callback again is refused.
    const cookie = { cookie: cookieHeader(setCookies(start)) };
    const first = await route.GET(new Request(back, { headers: cookie }));
    expect(setCookies(first).get("agent-ledger.session_token")).toBeTruthy();
    const user = await userRow("eve@corp.example");
    const replay = await route.GET(new Request(back, { headers: cookie }));
    expect(new URL(replay.headers.get("location") ?? "", BASE).pathname).toBe("/sign-in");
    expect(setCookies(replay).get("agent-ledger.session_token") || undefined).toBeUndefined();
    expect(await sessionCount(user?.id ?? "")).toBe(1);
  });

  it("sends the IdP a PKCE challenge from the server action's start too", async () => {
    const url = new URL(await startSsoSignIn("/approvals", new Headers({ origin: BASE })));
    expect(`${url.origin}${url.pathname}`).toBe(`${fake.issuer}/authorize`);
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    expect(url.searchParams.get("redirect_uri")).toBe(ssoRedirectUri());
  });
});

describe("sessions for disabled accounts", () => {
  it("are never created, by password either", async () => {
    const password = "a-long-enough-password";
    const created = await createUser(t.pool, operator("user:admin@example.com"), {
      email: "kim@corp.example",
      role: "ops",
      password,
    });
    if (!created.ok) throw new Error(created.message);
    const ok = await post("/sign-in/email", { email: "kim@corp.example", password });
    expect(ok.status).toBe(200);
    expect(await sessionCount(created.value.id)).toBe(1);

    await setUserDisabled(t.pool, operator("user:admin@example.com"), {
      userId: created.value.id,
      disabled: true,
    });
    const refused = await post("/sign-in/email", { email: "kim@corp.example", password });
    expect(refused.status).toBe(401);
    expect(refused.headers.getSetCookie()).toEqual([]);
    expect(await sessionCount(created.value.id)).toBe(0);
    // Not made and then deleted (lib/auth/sign-in): better-auth itself is refused the row.
    await expect(
      getAuth().api.signInEmail({ body: { email: "kim@corp.example", password } }),
    ).rejects.toThrow();
    expect(await sessionCount(created.value.id)).toBe(0);
  });
});

describe("the /api/auth SSO surface", () => {
  it("accepts only where to land: ID tokens, scopes and other providers are refused", async () => {
    for (const body of [
      { provider: "sso", idToken: { token: "x.y.z" } },
      { provider: "github" },
      { provider: "sso", scopes: ["offline_access"] },
      { provider: "sso", additionalData: { role: "admin" } },
    ]) {
      const r = await post("/sign-in/social", body);
      expect(r.status).toBe(400);
      expect(r.headers.get("content-type")).toContain("application/problem+json");
    }
  });

  it("keeps the landing page on this site", async () => {
    const r = await post("/sign-in/social", { callbackURL: "https://evil.example/steal" });
    expect(r.status).toBe(200);
    fake.nextUser = { sub: "idp-nia", email: "nia@corp.example", groups: ["ledger-ops"] };
    const { url } = (await r.json()) as { url: string };
    const back = (await fetch(url, { redirect: "manual" })).headers.get("location") ?? "";
    const callback = await route.GET(
      new Request(back, { headers: { cookie: cookieHeader(setCookies(r)) } }),
    );
    expect(callback.headers.get("location")).toBe("/");
  });

  it("refuses to start a sign-in from another site", async () => {
    const r = await post("/sign-in/social", {}, { origin: "https://evil.example" });
    expect(r.status).toBe(403);
  });

  it("answers 404 for the endpoints it does not expose", async () => {
    expect((await post("/sign-in/oauth2", { providerId: "sso" })).status).toBe(404);
    expect((await post("/sign-up/email", { email: "a@b.c", password: "x" })).status).toBe(404);
    const link = await route.POST(new Request(`${BASE}/api/auth/link-social`, { method: "POST" }));
    expect(link.status).toBe(404);
  });
});
