// Who may do what: the one table of roles → scopes. Every server action, route handler and
// query asks `can(viewer, scope)`; nothing else decides access.
import { ROLES, type Role } from "../../db/schema/auth";

export const SCOPES = [
  "tasks:read",
  "ledger:read",
  "payloads:read",
  "tasks:enqueue",
  "deadLetters:review",
  "approvals:decide",
  "outcomes:resolve",
  "tasks:cancel",
  "policies:write",
  "alerts:write",
  "users:manage",
  "tokens:manage",
  "export:run",
  "metrics:read",
] as const;
export type Scope = (typeof SCOPES)[number];

const READ: Scope[] = ["tasks:read", "ledger:read", "payloads:read"];

export const ROLE_SCOPES: Record<Role, readonly Scope[]> = {
  /** Triages dead letters and approval requests. */
  reviewer: [...READ, "deadLetters:review", "approvals:decide", "outcomes:resolve"],
  /** Browses audit trails and answers "why did it send that?". */
  ops: [...READ, "export:run", "metrics:read"],
  /** Sets retry limits and budgets, manages users and API tokens: everything. */
  admin: [...SCOPES],
};

export const ROLE_DESCRIPTIONS: Record<Role, string> = {
  reviewer: "Triages dead letters and approval requests",
  ops: "Browses audit trails, answers “why did it send that?”, exports",
  admin: "Sets retry limits and budgets, manages users and API tokens",
};

export { ROLES, type Role };

/** The signed-in person or the machine behind an API token, with what they may do. */
export type Viewer =
  | {
      kind: "user";
      id: string;
      email: string;
      name: string;
      role: Role;
      scopes: ReadonlySet<Scope>;
      sessionId: string;
    }
  | { kind: "token"; id: string; name: string; scopes: ReadonlySet<Scope> };

export function scopesForRole(role: Role): ReadonlySet<Scope> {
  return new Set(ROLE_SCOPES[role]);
}

export function can(viewer: Viewer | null | undefined, scope: Scope): boolean {
  return viewer?.scopes.has(scope) ?? false;
}

/** How the viewer appears in the ledger's `actor` column. */
export function actorOf(viewer: Viewer): string {
  return viewer.kind === "user" ? `user:${viewer.email}` : `token:${viewer.name}`;
}

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

export class AuthError extends Error {
  override name = "AuthError";
  constructor(
    readonly status: 401 | 403,
    message: string,
  ) {
    super(message);
  }
}

/** Throws 401 without a viewer and 403 without the scope; returns the viewer otherwise. */
export function requireScope(viewer: Viewer | null | undefined, scope: Scope): Viewer {
  if (!viewer) throw new AuthError(401, "sign in first");
  if (!viewer.scopes.has(scope)) {
    const who = viewer.kind === "user" ? `the ${viewer.role} role` : `token "${viewer.name}"`;
    throw new AuthError(403, `${who} may not do this (needs ${scope})`);
  }
  return viewer;
}
