// Who is asking: a session cookie (a person) or a bearer API token (a machine). Every check
// reads the database, so signing out, disabling a user or revoking a token takes effect on the
// next request. Server-only.
import type pg from "pg";
import { isScope, type Role, type Scope, scopesForRole, type Viewer } from "../domain/access";
import { hashToken, looksLikeToken } from "../domain/api-token";
import { env } from "../env";
import { getPool } from "../server/db";
import { getAuth } from "./auth";
import { SESSION_COOKIES } from "./cookies";

/** Last-used times are written at most this often per token. */
const LAST_USED_RESOLUTION_MS = 60_000;

export async function viewerFromToken(pool: pg.Pool, token: string): Promise<Viewer | null> {
  if (!looksLikeToken(token)) return null;
  const { rows } = await pool.query<{
    id: string;
    name: string;
    scopes: string[];
    last_used_at: Date | null;
  }>(
    "select id, name, scopes, last_used_at from api_tokens where hash = $1 and revoked_at is null",
    [hashToken(token)],
  );
  const row = rows[0];
  if (!row) return null;
  if (!row.last_used_at || Date.now() - row.last_used_at.getTime() > LAST_USED_RESOLUTION_MS) {
    await pool.query("update api_tokens set last_used_at = now() where id = $1", [row.id]);
  }
  return {
    kind: "token",
    id: row.id,
    name: row.name,
    scopes: new Set(row.scopes.filter(isScope) as Scope[]),
  };
}

export async function viewerFromSession(
  headers: Headers,
  now = new Date(),
): Promise<Viewer | null> {
  const found = await getAuth().api.getSession({ headers });
  if (!found) return null;
  const { session, user } = found;
  const maxAgeMs = env().AUTH_SESSION_MAX_HOURS * 3_600_000;
  if (user.disabled || now.getTime() - new Date(session.createdAt).getTime() > maxAgeMs) {
    // Disabled since sign-in, or past the absolute limit: the session ends here.
    await getPool().query("delete from sessions where id = $1", [session.id]);
    return null;
  }
  const role = user.role as Role;
  return {
    kind: "user",
    id: user.id,
    email: user.email,
    name: user.name,
    role,
    scopes: scopesForRole(role),
    sessionId: session.id,
  };
}

/** A bearer token if the request carries one (and only then), else the session cookie. */
export async function viewerFromHeaders(headers: Headers): Promise<Viewer | null> {
  const authorization = headers.get("authorization");
  if (authorization) {
    const match = /^Bearer\s+(\S+)$/i.exec(authorization);
    return match?.[1] ? viewerFromToken(getPool(), match[1]) : null;
  }
  // No session cookie: nobody, without a database read.
  const cookie = headers.get("cookie") ?? "";
  if (!SESSION_COOKIES.some((name) => cookie.includes(`${name}=`))) return null;
  return viewerFromSession(headers);
}
