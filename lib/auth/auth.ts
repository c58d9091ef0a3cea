// The better-auth instance: database sessions (revocable, checked on every request), email and
// password for everyone (accounts are created by admins, never by sign-up), and optional OIDC
// single sign-on whose IdP groups map to our roles. Server-only.
import type { OAuth2Tokens } from "better-auth";
import { drizzleAdapter } from "better-auth/adapters/drizzle";
import { betterAuth } from "better-auth/minimal";
import { nextCookies } from "better-auth/next-js";
import { type GenericOAuthUserInfo, genericOAuth } from "better-auth/plugins/generic-oauth";
import { z } from "zod";
import { withTransaction } from "../../db/client";
import * as schema from "../../db/schema";
import { operator, type Role } from "../domain/access";
import { env } from "../env";
import { setUserRole } from "../server/commands/users";
import { getDb, getPool } from "../server/db";
import { appendLedger, SYSTEM_STREAM } from "../server/ledger/append-ledger";
import { COOKIE_PREFIX } from "./cookies";
import { roleFromGroups } from "./oidc-roles";

export const OIDC_PROVIDER_ID = "sso";
/** The ledger actor for what the identity provider decides: accounts it creates, roles it changes. */
export const SSO_ACTOR = "sso";

export function authBaseUrl(): string {
  const e = env();
  return e.AUTH_BASE_URL?.replace(/\/+$/, "") ?? `http://${e.HOST}:${e.PORT}`;
}

/** The base URL plus its loopback twin, so http://localhost and http://127.0.0.1 both work. */
export function trustedOrigins(): string[] {
  const base = new URL(authBaseUrl());
  const origins = [base.origin];
  const twin = { localhost: "127.0.0.1", "127.0.0.1": "localhost" }[base.hostname];
  if (twin) origins.push(`${base.protocol}//${twin}${base.port ? `:${base.port}` : ""}`);
  return origins;
}

/** Where the identity provider sends people back; register exactly this redirect URI there. */
export function ssoRedirectUri(): string {
  return `${authBaseUrl()}/api/auth/callback/${OIDC_PROVIDER_ID}`;
}

type Claims = Record<string, unknown>;
const claimsSchema = z.record(z.string(), z.unknown());
const discoverySchema = z.object({ userinfo_endpoint: z.string().url().optional() });
const IDP_TIMEOUT_MS = 10_000;

/** An ID token's claims; better-auth has checked its signature, issuer, audience and nonce. */
function idTokenClaims(idToken: string): Claims {
  const payload = idToken.split(".")[1] ?? "";
  return claimsSchema.parse(JSON.parse(Buffer.from(payload, "base64url").toString("utf8")));
}

/**
 * The person as the IdP describes them: the ID token's claims, completed from the userinfo
 * endpoint when the token lacks the groups claim or the email (many IdPs release groups only
 * there; better-auth alone reads userinfo only when the ID token has no email).
 */
function ssoProfile(discoveryUrl: string, groupsClaim: string) {
  let endpoint: Promise<string | undefined> | undefined;
  const userinfoEndpoint = () => {
    endpoint ??= fetch(discoveryUrl, { signal: AbortSignal.timeout(IDP_TIMEOUT_MS) })
      .then(async (r) => discoverySchema.parse(await r.json()).userinfo_endpoint)
      .catch(() => {
        endpoint = undefined; // try again at the next sign-in
        return undefined;
      });
    return endpoint;
  };
  return async (tokens: OAuth2Tokens): Promise<GenericOAuthUserInfo | null> => {
    const fromToken = tokens.idToken ? idTokenClaims(tokens.idToken) : {};
    let fromUserinfo: Claims = {};
    const url =
      tokens.accessToken && (!(groupsClaim in fromToken) || !fromToken.email)
        ? await userinfoEndpoint()
        : undefined;
    if (url) {
      try {
        const r = await fetch(url, {
          headers: { authorization: `Bearer ${tokens.accessToken}`, accept: "application/json" },
          signal: AbortSignal.timeout(IDP_TIMEOUT_MS),
        });
        if (r.ok) fromUserinfo = claimsSchema.parse(await r.json());
      } catch {
        // Without userinfo the ID token alone decides; a missing groups claim refuses sign-in.
      }
    }
    // OpenID Connect Core 5.3.2: userinfo for another subject must not be used.
    if (fromToken.sub !== undefined && fromUserinfo.sub !== undefined) {
      if (String(fromToken.sub) !== String(fromUserinfo.sub)) return null;
    }
    const profile = { ...fromUserinfo, ...fromToken };
    if (profile.sub === undefined || profile.sub === null) return null;
    const email = typeof profile.email === "string" ? profile.email : undefined;
    const name = [profile.name, profile.preferred_username, email?.split("@")[0]].find(
      (v): v is string => typeof v === "string" && v.trim() !== "",
    );
    return {
      ...profile,
      sub: String(profile.sub),
      email,
      emailVerified: profile.email_verified === true || profile.email_verified === "true",
      name,
      image: typeof profile.picture === "string" ? profile.picture : undefined,
    };
  };
}

/**
 * Roles chosen at sign-in for accounts about to be created, by request (better-auth's endpoint
 * context, the same object in validateUserInfo and in the user create hook of one request).
 */
const pendingRoles = new WeakMap<object, Role>();

type GateInput = {
  user: Record<string, unknown>;
  source: { method: string; action: string; oauth?: { providerId: string; profile?: Claims } };
};
type GateResult = { error: string; errorDescription?: string } | undefined;

/**
 * Every SSO sign-in passes here before an account is created or linked or a session made: no
 * mapped group → refused; a disabled account → refused; otherwise the role follows the IdP's
 * groups, recorded as `user.role_changed` by "sso" when it changes.
 */
async function gateSsoSignIn(input: GateInput, context: object): Promise<GateResult> {
  const { source } = input;
  if (source.method !== "oauth" || source.oauth?.providerId !== OIDC_PROVIDER_ID) return;
  const e = env();
  const role = roleFromGroups(source.oauth.profile?.[e.OIDC_GROUPS_CLAIM], e.OIDC_ROLE_MAP);
  if (!role) {
    return {
      error: "no_role",
      errorDescription:
        "Your single sign-on account is in no group that may use Agent Ledger. Ask an admin.",
    };
  }
  if (source.action === "create-user") {
    pendingRoles.set(context, role);
    return;
  }
  const userId = input.user.id;
  const pool = getPool();
  const { rows } = await pool.query<{ disabled: boolean }>(
    "select disabled from users where id = $1",
    [typeof userId === "string" ? userId : ""],
  );
  if (!rows[0] || typeof userId !== "string") return { error: "unknown_user" };
  if (rows[0].disabled) {
    return { error: "account_disabled", errorDescription: "This account is disabled." };
  }
  // The IdP's groups decide the role, not a person here: the sign-in acts as the system itself.
  const changed = await setUserRole(pool, operator(SSO_ACTOR), { userId, role });
  // A "conflict" is the last active admin, whom the IdP may not demote: they keep admin.
  if (!changed.ok && changed.code !== "conflict") return { error: "role_not_updated" };
}

/** The IdP's authorization URL for a sign-in that ends at `callbackURL` (a same-site path). */
export async function startSsoSignIn(callbackURL: string, headers: Headers): Promise<string> {
  const { url } = await getAuth().api.signInSocial({
    body: { provider: OIDC_PROVIDER_ID, callbackURL, disableRedirect: true },
    headers,
  });
  if (!url) throw new Error("single sign-on is not configured");
  return url;
}

function createAuth() {
  const e = env();
  if (!e.AUTH_SECRET) {
    throw new Error(
      "AUTH_SECRET is not set (at least 32 characters). `npm start` generates one; otherwise run `openssl rand -base64 32` and set it.",
    );
  }
  const discoveryUrl = `${e.OIDC_ISSUER?.replace(/\/$/, "")}/.well-known/openid-configuration`;
  const oidc =
    e.OIDC_ISSUER && e.OIDC_CLIENT_ID && e.OIDC_CLIENT_SECRET
      ? genericOAuth({
          config: [
            {
              providerId: OIDC_PROVIDER_ID,
              discoveryUrl,
              clientId: e.OIDC_CLIENT_ID,
              clientSecret: e.OIDC_CLIENT_SECRET,
              scopes: ["openid", "email", "profile"],
              pkce: true,
              // Skip the provider rather than accept ID tokens it cannot verify.
              requireIdTokenVerification: true,
              getUserInfo: ssoProfile(discoveryUrl, e.OIDC_GROUPS_CLAIM),
              // Name and email follow the IdP at every sign-in; the role does too, through
              // gateSsoSignIn (better-auth never copies `input: false` fields from a profile).
              overrideUserInfo: true,
              // Signing out ends our session only, never the person's session at the IdP.
              disableProviderLogout: true,
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
      validateUserInfo: (input, context) => gateSsoSignIn(input, context),
      // `input: false`: no request may set these; SSO sets the role in the create hook below.
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
          // Only SSO creates users through better-auth (admins use lib/server/commands/users),
          // and only with the role gateSsoSignIn chose; anything else is refused.
          before: async (user, context) => {
            const role = context ? pendingRoles.get(context) : undefined;
            if (!role) return false;
            return { data: { ...user, role, disabled: false } };
          },
          after: async (user) => {
            await withTransaction(getPool(), (client) =>
              appendLedger(client, SYSTEM_STREAM, {
                kind: "user.created",
                actor: SSO_ACTOR,
                data: { userId: user.id, email: user.email, name: user.name, role: user.role },
              }),
            );
          },
        },
      },
      session: {
        create: {
          // No session for a disabled account, however it signed in.
          before: async (session) => {
            const { rows } = await getPool().query<{ disabled: boolean }>(
              "select disabled from users where id = $1",
              [session.userId],
            );
            if (rows[0]?.disabled !== false) return false;
          },
        },
      },
    },
    // Failed SSO sign-ins land on the sign-in page with ?error=<code>&error_description=….
    onAPIError: { errorURL: `${authBaseUrl()}/sign-in` },
    advanced: {
      useSecureCookies: authBaseUrl().startsWith("https:"),
      cookiePrefix: COOKIE_PREFIX,
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
