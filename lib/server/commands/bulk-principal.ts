// A bulk action runs later than its confirmation (in the background runner), for the people who
// confirmed it: their principals are stored with it and read back here, and then re-read as
// they stand now (currentPrincipal), so a role changed or a user disabled since the
// confirmation is what the runner acts with. Scopes are read through the vocabulary, so a scope
// that no longer exists is simply not held.
import { z } from "zod";
import type { SqlClient } from "../../../db/client";
import { isRole, isScope, type Principal, type Scope, scopesForRole } from "../../domain/access";
import type { JsonValue } from "../../domain/json";

const storedSchema = z.object({ actor: z.string(), who: z.string(), scopes: z.array(z.string()) });

export function storePrincipal(principal: Principal): JsonValue {
  return { actor: principal.actor, who: principal.who, scopes: [...principal.scopes].sort() };
}

export function readPrincipal(stored: unknown): Principal | null {
  const parsed = storedSchema.safeParse(stored);
  if (!parsed.success) return null;
  return {
    actor: parsed.data.actor,
    who: parsed.data.who,
    scopes: new Set(parsed.data.scopes.filter((s): s is Scope => isScope(s))),
  };
}

/**
 * The stored principal as it stands now: a person (`user:<email>`) from the users table, their
 * role's scopes, unless disabled or gone; an API token (`token:<name>`) from its unrevoked row.
 * Any other actor (the operator's own processes) has no row to re-read and keeps what was
 * stored. `lapsed` says why the person can no longer act at all.
 */
export async function currentPrincipal(
  client: SqlClient,
  stored: Principal,
): Promise<{ principal: Principal } | { lapsed: string }> {
  if (stored.actor.startsWith("user:")) {
    const email = stored.actor.slice("user:".length);
    const { rows } = await client.query<{ role: string; disabled: boolean }>(
      "select role, disabled from users where lower(email) = lower($1)",
      [email],
    );
    const user = rows[0];
    if (!user) return { lapsed: `${stored.actor} is no longer a user` };
    if (user.disabled) return { lapsed: `${stored.actor} was disabled` };
    if (!isRole(user.role)) return { lapsed: `${stored.actor} has no known role` };
    return {
      principal: {
        actor: stored.actor,
        who: `the ${user.role} role`,
        scopes: scopesForRole(user.role),
      },
    };
  }
  if (stored.actor.startsWith("token:")) {
    const name = stored.actor.slice("token:".length);
    const { rows } = await client.query<{ scopes: string[] }>(
      "select scopes from api_tokens where name = $1 and revoked_at is null",
      [name],
    );
    const token = rows[0];
    if (!token) return { lapsed: `${stored.actor} was revoked` };
    return {
      principal: {
        actor: stored.actor,
        who: stored.who,
        scopes: new Set(token.scopes.filter((s): s is Scope => isScope(s))),
      },
    };
  }
  return { principal: stored };
}

/**
 * What a per-task command adds to the entries it writes when a bulk action runs it: the bulk's
 * id, so the task's own timeline and /why say which bulk action it was part of. Nothing for a
 * single task's own button.
 */
export function bulkField(bulkId: string | undefined): { bulkId?: string } {
  return bulkId ? { bulkId } : {};
}
