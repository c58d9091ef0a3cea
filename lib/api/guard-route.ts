// The route handlers' end of the one chain (lib/auth/guard.ts has the server actions'): who is
// asking, by session or bearer token → may they (scope) → the handler. Refusals are
// problem+json, which is why it lives with the API and not in lib/auth (lib/auth never imports
// lib/api; the arrow points the other way).

import { viewerFromHeaders } from "../auth/viewer";
import { missingScope, principalOf, type Scope, type Viewer } from "../domain/access";
import { isConnectionError } from "../server/db";
import { problem, unavailable } from "./problems";

export type RouteContext = { params: Promise<Record<string, string | string[]>> };

/** A route handler that requires `scope` from a session or a bearer token. */
export function guardRoute(
  scope: Scope,
  handler: (request: Request, viewer: Viewer, context: RouteContext) => Promise<Response>,
): (request: Request, context: RouteContext) => Promise<Response> {
  return async (request, context) => {
    let viewer: Viewer | null;
    try {
      viewer = await viewerFromHeaders(request.headers);
    } catch (error) {
      if (isConnectionError(error)) return unavailable();
      throw error;
    }
    if (!viewer) {
      return problem("unauthenticated", "Sign in or send an API token", undefined, {
        "www-authenticate": 'Bearer realm="agent-ledger"',
      });
    }
    if (!viewer.scopes.has(scope)) {
      return problem("forbidden", missingScope(principalOf(viewer).who, scope));
    }
    return handler(request, viewer, context);
  };
}
