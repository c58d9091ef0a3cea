// Who calls: the demo roles signed in over HTTP, an admin disabled after signing in (the cookie
// outlives the account), an API token with every scope and one with metrics:read only.
import type pg from "pg";
import { operator, type Role } from "../../lib/domain/access";
import { createApiToken } from "../../lib/server/commands/api-tokens";
import {
  createUser,
  DEMO_PASSWORD,
  DEMO_USERS,
  setUserDisabled,
} from "../../lib/server/commands/users";
import { e2ePort } from "../settings";
import { type Principal, TOKEN_SCOPES } from "./matrix";
import { ACTOR, PASSWORD, unique } from "./matrix-fixtures";

export const BASE_URL = `http://127.0.0.1:${e2ePort()}`;

/** Request headers that make a request come from one principal. */
export type Credentials = Record<string, string>;

/** Signs in over the JSON endpoint and returns the cookies it set, as a Cookie header value. */
export async function signInCookie(email: string, password: string): Promise<string> {
  const response = await fetch(`${BASE_URL}/api/auth/sign-in/email`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password }),
    redirect: "manual",
  });
  if (response.status !== 200) {
    throw new Error(`signing in ${email} answered ${response.status}: ${await response.text()}`);
  }
  const cookies = response.headers
    .getSetCookie()
    .map((line) => line.split(";")[0] ?? "")
    .filter((pair) => /^[^=]+=.+/.test(pair));
  if (!cookies.some((pair) => pair.startsWith("agent-ledger.session_token="))) {
    throw new Error(`signing in ${email} set no session cookie`);
  }
  return cookies.join("; ");
}

const DEMO_EMAIL: Record<string, string> = Object.fromEntries(
  DEMO_USERS.map((u) => [u.role, u.email]),
);

export type Principals = {
  credentials: (principal: Principal) => Credentials;
  /** For calls that end a session: a new session for session principals, the same otherwise. */
  fresh: (principal: Principal) => Promise<Credentials>;
  /** The disabled user's id, to check it really is disabled and sessionless. */
  disabledUserId: string;
};

export async function setUpPrincipals(db: pg.Pool): Promise<Principals> {
  const sessions = new Map<Principal, Credentials>();
  const signInDemo = async (role: Role): Promise<Credentials> => {
    const email = DEMO_EMAIL[role];
    if (!email) throw new Error(`no demo user for ${role}`);
    return { cookie: await signInCookie(email, DEMO_PASSWORD) };
  };
  for (const role of ["ops", "reviewer", "admin"] as const) {
    sessions.set(role, await signInDemo(role));
  }

  // Disabled after signing in: the browser still holds the cookie; the account is off.
  const email = `${unique("authz-disabled")}@example.com`;
  const made = await createUser(db, operator(ACTOR), { email, role: "admin", password: PASSWORD });
  if (!made.ok) throw new Error(`could not create ${email}: ${made.message}`);
  sessions.set("disabled", { cookie: await signInCookie(email, PASSWORD) });
  const disabled = await setUserDisabled(db, operator(ACTOR), {
    userId: made.value.id,
    disabled: true,
  });
  if (!disabled.ok) throw new Error(`could not disable ${email}: ${disabled.message}`);

  for (const principal of Object.keys(TOKEN_SCOPES) as Principal[]) {
    const scopes = [...(TOKEN_SCOPES[principal] ?? [])];
    const token = await createApiToken(db, operator(ACTOR), { name: unique("authz"), scopes });
    if (!token.ok) throw new Error(`could not create a token: ${token.message}`);
    sessions.set(principal, { authorization: `Bearer ${token.value.token}` });
  }
  sessions.set("anonymous", {});

  const credentials = (principal: Principal): Credentials => {
    const found = sessions.get(principal);
    if (!found) throw new Error(`no credentials for ${principal}`);
    return found;
  };
  return {
    credentials,
    fresh: async (principal) => {
      const role = (["ops", "reviewer", "admin"] as const).find((r) => r === principal);
      return role ? signInDemo(role) : credentials(principal);
    },
    disabledUserId: made.value.id,
  };
}
