// The better-auth instance: database sessions (revocable, checked on every request), email and
// password for everyone (accounts are created by admins, never by sign-up), and optional OIDC
// single sign-on whose IdP groups map to our roles. Server-only.
import { drizzleAdapter } from "better-auth/adapters/drizzle";
import { betterAuth } from "better-auth/minimal";
import { nextCookies } from "better-auth/next-js";
import { genericOAuth } from "better-auth/plugins/generic-oauth";
import * as schema from "../../db/schema";
import { env } from "../env";
import { getDb } from "../server/db";
import { roleFromGroups } from "./oidc-roles";

export const OIDC_PROVIDER_ID = "sso";

export function authBaseUrl(): string {
  const e = env();
  return e.AUTH_BASE_URL ?? `http://${e.HOST}:${e.PORT}`;
}

/** The base URL plus its loopback twin, so http://localhost and http://127.0.0.1 both work. */
export function trustedOrigins(): string[] {
  const base = new URL(authBaseUrl());
  const origins = [base.origin];
  const twin = { localhost: "127.0.0.1", "127.0.0.1": "localhost" }[base.hostname];
  if (twin) origins.push(`${base.protocol}//${twin}${base.port ? `:${base.port}` : ""}`);
  return origins;
}

function createAuth() {
  const e = env();
  if (!e.AUTH_SECRET) {
    throw new Error(
      "AUTH_SECRET is not set (at least 32 characters). `npm start` generates one; otherwise run `openssl rand -base64 32` and set it.",
    );
  }
  const oidc =
    e.OIDC_ISSUER && e.OIDC_CLIENT_ID && e.OIDC_CLIENT_SECRET
      ? genericOAuth({
          config: [
            {
              providerId: OIDC_PROVIDER_ID,
              discoveryUrl: `${e.OIDC_ISSUER.replace(/\/$/, "")}/.well-known/openid-configuration`,
              clientId: e.OIDC_CLIENT_ID,
              clientSecret: e.OIDC_CLIENT_SECRET,
              scopes: ["openid", "email", "profile"],
              pkce: true,
              // Roles follow the IdP's groups at every sign-in.
              overrideUserInfo: true,
              mapProfileToUser: (profile) => ({
                role: roleFromGroups(profile[e.OIDC_GROUPS_CLAIM], e.OIDC_ROLE_MAP),
              }),
            },
          ],
        })
      : undefined;
  return betterAuth({
    appName: "Agent Ledger",
    baseURL: authBaseUrl(),
    secret: e.AUTH_SECRET,
    trustedOrigins: trustedOrigins(),
    database: drizzleAdapter(getDb(), { provider: "pg", schema, usePlural: true }),
    emailAndPassword: {
      enabled: true,
      disableSignUp: true,
      minPasswordLength: 12,
      maxPasswordLength: 256,
    },
    user: {
      additionalFields: {
        role: { type: "string", required: false, defaultValue: "ops", input: false },
        disabled: { type: "boolean", required: false, defaultValue: false, input: false },
      },
    },
    session: {
      // Sliding: a session unused for the idle timeout expires; getViewer also enforces the
      // absolute limit from createdAt. No cookie cache: every request reads the session row, so
      // sign-out, disabling a user and revoking take effect at once.
      expiresIn: e.AUTH_SESSION_IDLE_MINUTES * 60,
      updateAge: Math.min(300, e.AUTH_SESSION_IDLE_MINUTES * 30),
      cookieCache: { enabled: false },
    },
    databaseHooks: {
      user: {
        create: {
          // SSO creates accounts on first sign-in only for people whose groups map to a role.
          before: async (user) => {
            const role = (user as { role?: unknown }).role;
            if (role === null) return false;
            return { data: user };
          },
        },
      },
    },
    advanced: {
      useSecureCookies: authBaseUrl().startsWith("https:"),
      cookiePrefix: "agent-ledger",
      defaultCookieAttributes: { httpOnly: true, sameSite: "lax", path: "/" },
    },
    // Our own per-account and per-address lock guards password sign-in (lib/auth/login-limit).
    rateLimit: { enabled: false },
    telemetry: { enabled: false },
    // Failed sign-ins are recorded in login_attempts; keep emails out of the server log.
    logger: { level: "error" },
    plugins: [...(oidc ? [oidc] : []), nextCookies()],
  });
}

export type Auth = ReturnType<typeof createAuth>;

const holder = globalThis as typeof globalThis & { __agentLedgerAuth?: Auth };

export function getAuth(): Auth {
  holder.__agentLedgerAuth ??= createAuth();
  return holder.__agentLedgerAuth;
}

export function ssoEnabled(): boolean {
  return Boolean(env().OIDC_ISSUER);
}
