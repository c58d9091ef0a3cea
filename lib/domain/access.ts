// Who may do what: roles, scopes and the one table of role → scopes. Every server action,
// route handler, query and command asks by scope; nothing else decides access. Pure: the
// database schema builds its role check from ROLES, and commands authorize a Principal.
export const ROLES = ["reviewer", "ops", "admin"] as const;
export type Role = (typeof ROLES)[number];

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
  "schedules:write",
  "events:send",
] as const;
export type Scope = (typeof SCOPES)[number];

const READ: Scope[] = ["tasks:read", "ledger:read", "payloads:read"];

export const ROLE_SCOPES: Record<Role, readonly Scope[]> = {
  /** Triages dead letters and approval requests. */
  reviewer: [...READ, "deadLetters:review", "approvals:decide", "outcomes:resolve", "events:send"],
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

/**
 * Whoever a command acts for: the ledger actor, how a refusal names them, and their scopes.
 * A viewer becomes one with principalOf; the CLI and the worker's own jobs use operator().
 */
export type Principal = {
  /** As the ledger's `actor` column names them ("user:<email>", "token:<name>", "cli:<user>"). */
  actor: string;
  /** As a refusal names them: "the reviewer role", 'token "ci"', "the operator". */
  who: string;
  scopes: ReadonlySet<Scope>;
};

export function scopesForRole(role: Role): ReadonlySet<Scope> {
  return new Set(ROLE_SCOPES[role]);
}

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

export function can(viewer: { scopes: ReadonlySet<Scope> } | null | undefined, scope: Scope) {
  return viewer?.scopes.has(scope) ?? false;
}

/** How the viewer appears in the ledger's `actor` column. */
export function actorOf(viewer: Viewer): string {
  return viewer.kind === "user" ? `user:${viewer.email}` : `token:${viewer.name}`;
}

function whoIs(viewer: Viewer): string {
  return viewer.kind === "user" ? `the ${viewer.role} role` : `token "${viewer.name}"`;
}

export function principalOf(viewer: Viewer): Principal {
  return { actor: actorOf(viewer), who: whoIs(viewer), scopes: viewer.scopes };
}

/**
 * Someone with the database's own access: the CLI run on the server, the worker's alerting,
 * the demo seed. They hold every scope; the actor still says who they are in the ledger.
 */
export function operator(actor: string): Principal {
  return { actor, who: "the operator", scopes: new Set(SCOPES) };
}

/** The one wording of a refusal for a missing scope, wherever it is refused. */
export function missingScope(who: string, scope: Scope, what = "do this"): string {
  return `${who} may not ${what} (needs ${scope})`;
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
  if (!viewer.scopes.has(scope)) throw new AuthError(403, missingScope(whoIs(viewer), scope));
  return viewer;
}
