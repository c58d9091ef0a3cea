// What a live dashboard screen polls: GET /api/screens/<screen>?<the page's own search params>
// answers the same DTO the page rendered on the server, from the same query, for the signed-in
// person (or a token) with the page's scope. The search is parsed with the page's zod schema,
// so a bad address is a 400 that says what was wrong, never a 500.
import type { z } from "zod";
import type { Scope, Viewer } from "../domain/access";
import { isConnectionError, type Readers, screenReaders, wroteRecently } from "../server/db";
import { parseSearchParams, searchParamsOf } from "../server/queries/parse-search-params";
import { guardRoute } from "./guard-route";
import { problem, unavailable } from "./problems";

export type ScreenSpec<S extends z.ZodType, T> = {
  /** The scope the page itself asks of its viewer. */
  scope: Scope;
  /** The page's search-params schema (an object schema; `z.object({})` for none). */
  search: S;
  /**
   * The page's query, through the replica when one is configured (the primary for a while after
   * this person's own action); null is a 404 (e.g. a task that does not exist).
   */
  read: (viewer: Viewer, search: z.output<S>, readers: Readers) => Promise<T | null>;
};

export function screenRoute<S extends z.ZodType, T>(spec: ScreenSpec<S, T>) {
  return guardRoute(spec.scope, async (request, viewer) => {
    const parsed = parseSearchParams(spec.search, searchParamsOf(request.url));
    if (!parsed.ok) return problem("invalid-request", parsed.errors.join(" "));
    let data: T | null;
    try {
      data = await spec.read(
        viewer,
        parsed.data,
        screenReaders(wroteRecently(request.headers.get("cookie"))),
      );
    } catch (error) {
      if (isConnectionError(error)) return unavailable();
      throw error;
    }
    if (data === null) return problem("not-found", "it no longer exists");
    return Response.json(data, { headers: { "cache-control": "no-store" } });
  });
}
