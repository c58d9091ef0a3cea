// The authorization matrix's vocabulary (matrix.ts): who calls, what a row is, what rows may use
// to build a valid input, and the demo sign-in every session row shares.
import type pg from "pg";
import { type Role, SCOPES, type Scope } from "../../lib/domain/access";
import { DEMO_PASSWORD } from "../../lib/server/commands/users";

export const PRINCIPALS = [
  "anonymous",
  "ops",
  "reviewer",
  "admin",
  /** An admin who signed in and was then disabled: the cookie outlives the account. */
  "disabled",
  "token with every scope",
  "token with metrics:read",
] as const;
export type Principal = (typeof PRINCIPALS)[number];

export const TOKEN_SCOPES: Partial<Record<Principal, readonly Scope[]>> = {
  "token with every scope": SCOPES,
  "token with metrics:read": ["metrics:read"],
};

/** "ok" is a 2xx (handlers) or `{ ok: true }` (actions); redirects name their target path. */
export type Outcome = "ok" | 401 | 403 | 404 | `redirect:${string}`;

/** What rows may use to build a valid input: the e2e database and fresh, unique fixtures. */
export type MatrixContext = {
  db: pg.Pool;
  /** A name no other row or run has used: `${prefix}-<random>`. */
  unique: (prefix: string) => string;
  /** A new, active user of `role` (password at least 12 characters). */
  freshUser: (role: Role) => Promise<{ id: string; email: string }>;
  /** A new, unrevoked API token. */
  freshToken: (scopes: Scope[]) => Promise<{ id: string }>;
  /** A task dead-lettered by its retry limit, with no journal. */
  deadTask: () => Promise<TaskAt>;
  /** A refund the worker parked for a person's approval (not a `money` tool: one yes runs it). */
  awaitingApprovalTask: () => Promise<TaskAt>;
  /** A dead task whose effect started and never finished: its outcome is unknown. */
  unknownOutcome: () => Promise<TaskAt & { key: string }>;
  /** An agent in the catalog that takes any input (for enqueueing over the API). */
  apiAgent: () => Promise<string>;
  /** A dead task with a pending two-person replay request (its agent has a `money` tool). */
  pendingReviewRequest: () => Promise<TaskAt & { requestId: number }>;
  /** A tool of its own in the catalog (no admin limit yet), whose agent never runs. */
  freshTool: () => Promise<string>;
};

type RouteRequest = { path: string; body: unknown };

/** A task and the version a reviewer would have loaded. */
export type TaskAt = { taskId: string; version: number };

type ActionCall = {
  kind: "action";
  /** The arguments, as a client would pass them (JSON-encoded over the wire). */
  args: (ctx: MatrixContext) => Promise<unknown[]> | unknown[];
};

type RouteCall = {
  kind: "route";
  /** A concrete path for the row's route pattern, or a path and the body that goes with it. */
  path: string | ((ctx: MatrixContext) => Promise<string | RouteRequest> | string | RouteRequest);
  /** A JSON body, for methods that take one. */
  body?: (ctx: MatrixContext) => unknown;
};

type Access =
  /**
   * Sessions (and, for route handlers, API tokens) with this scope succeed, and with
   * `alsoNeeds` as well when the input asks for more (a check inside the action).
   * `readOnly` calls may not write even when they succeed.
   */
  | { scope: Scope; alsoNeeds?: Scope; readOnly?: true }
  /** The same for everyone; `writes` says whether a call may change rows. */
  | {
      public: Outcome | ((principal: Principal) => Outcome);
      writes: boolean | ((principal: Principal) => boolean);
    };

export type MatrixRow = {
  /** "action:<export name>" or "<METHOD> <route pattern>", as the source scan names them. */
  target: string;
  /** What the valid call does, when a target has more than one row. */
  does: string;
  call: ActionCall | RouteCall;
  /** The call ends the caller's session: give each session principal a fresh one first. */
  endsSession?: true;
} & Access;

export const DEMO_SIGN_IN = { email: "ops@example.com", password: DEMO_PASSWORD };
const SESSION_PRINCIPALS: readonly Principal[] = ["ops", "reviewer", "admin"];
export const holdsSession = (p: Principal) => SESSION_PRINCIPALS.includes(p);
