// The authorization matrix: one row per way to call every server action and route handler, with
// a valid input, so only authorization decides the outcome. The outcome per principal follows
// from the row's scope and ROLE_SCOPES; public rows state theirs. matrix.spec.ts runs every
// row × principal against the built app and fails for any action or handler without a row.
// The rows live by screen in rows-review.ts, rows-settings.ts and rows-routes.ts.
import { ROLE_SCOPES, type Role, type Scope } from "../../lib/domain/access";
import { type MatrixRow, type Outcome, type Principal, TOKEN_SCOPES } from "./matrix-types";
import { REVIEW_ROWS } from "./rows-review";
import { ROUTE_ROWS } from "./rows-routes";
import { SETTINGS_ROWS } from "./rows-settings";

export {
  type MatrixContext,
  type MatrixRow,
  type Outcome,
  PRINCIPALS,
  type Principal,
  type TaskAt,
  TOKEN_SCOPES,
} from "./matrix-types";

export const MATRIX: readonly MatrixRow[] = [...REVIEW_ROWS, ...SETTINGS_ROWS, ...ROUTE_ROWS];

export function rowId(row: MatrixRow): string {
  return `${row.target} (${row.does})`;
}

function roleOf(principal: Principal): Role | undefined {
  return (["ops", "reviewer", "admin"] as const).find((r) => r === principal);
}

/** The outcome the table promises for `principal` calling `row`. */
export function expectedOutcome(row: MatrixRow, principal: Principal): Outcome {
  if ("public" in row) return typeof row.public === "function" ? row.public(principal) : row.public;
  if (principal === "anonymous" || principal === "disabled") return 401;
  const tokenScopes = TOKEN_SCOPES[principal];
  if (tokenScopes) {
    // Server actions are for people in a browser: a token is no session.
    if (row.call.kind === "action") return 401;
    return allowed(tokenScopes, row) ? "ok" : 403;
  }
  const role = roleOf(principal);
  if (!role) throw new Error(`no rule for principal ${principal}`);
  return allowed(ROLE_SCOPES[role], row) ? "ok" : 403;
}

function allowed(scopes: readonly Scope[], row: { scope: Scope; alsoNeeds?: Scope }): boolean {
  return scopes.includes(row.scope) && (!row.alsoNeeds || scopes.includes(row.alsoNeeds));
}

/** Whether the call may change rows; denied calls never may. */
export function mayWrite(row: MatrixRow, principal: Principal): boolean {
  if ("public" in row) return typeof row.writes === "function" ? row.writes(principal) : row.writes;
  return !row.readOnly && expectedOutcome(row, principal) === "ok";
}
