// The one chain every server action goes through: who is asking (session) → may they (scope) →
// is the input well-formed (zod) → run the command. Route handlers have the same chain in
// lib/api/guard-route.ts. Actions and handlers never check access any other way; the
// authorization matrix test holds them to it.
import { headers } from "next/headers";
import type { z } from "zod";
import { AuthError, requireScope, type Scope, type Viewer } from "../domain/access";
import type { CommandResult } from "../domain/command-result";
import { unstorable } from "../domain/json";
import { describeIssues, issueFields } from "../domain/zod-issues";
import { markWrote } from "./read-your-writes";
import { viewerFromSession } from "./viewer";

export type ActionResult<T> =
  | { ok: true; value: T }
  | {
      ok: false;
      status: 400 | 401 | 403 | 404 | 409 | 422;
      error: string;
      /** Per-field messages for forms, keyed by the input's field path. */
      fields?: Record<string, string>;
    };

const STATUS_OF_CODE = { not_found: 404, conflict: 409, invalid: 422, forbidden: 403 } as const;

export function fromCommand<T>(result: CommandResult<T>): ActionResult<T> {
  return result.ok
    ? { ok: true, value: result.value }
    : { ok: false, status: STATUS_OF_CODE[result.code], error: result.message };
}

/** FormData from a <form action>, or a plain object from a client call. */
export function toPlain(raw: unknown): unknown {
  if (typeof FormData !== "undefined" && raw instanceof FormData) {
    const out: Record<string, unknown> = {};
    for (const [key, value] of raw.entries()) {
      if (key.startsWith("$ACTION")) continue;
      out[key] = typeof value === "string" ? value : undefined;
    }
    return out;
  }
  return raw;
}

export function zodFailure(error: z.ZodError): ActionResult<never> {
  return { ok: false, status: 400, error: describeIssues(error), fields: issueFields(error) };
}

export type ActionSpec<S extends z.ZodType, T> = {
  /** Matches the exported name; the authorization matrix is keyed by it. */
  name: string;
  scope: Scope;
  input: S;
  run: (input: z.infer<S>, viewer: Viewer) => Promise<ActionResult<T>>;
};

/** Server actions are for people in the browser: only a session counts, never a token. */
export function defineAction<S extends z.ZodType, T>(
  spec: ActionSpec<S, T>,
): (raw: unknown) => Promise<ActionResult<T>> {
  return async (raw) => {
    const viewer = await viewerFromSession(await headers());
    const denied = deny(viewer, spec.scope);
    if (denied) return denied;
    const plain = toPlain(raw);
    // NUL, lone surrogates and hostile depth: refused before a schema or the database sees them.
    const refused = unstorable(plain, "input");
    if (refused) return { ok: false, status: 400, error: `${refused}; it cannot be stored` };
    const parsed = spec.input.safeParse(plain);
    if (!parsed.success) return zodFailure(parsed.error);
    const result = await spec.run(parsed.data, viewer as Viewer);
    // The page this action refreshes must show what it did, not what a replica still holds. A
    // refused action did nothing, and must not set it: setting a cookie makes Next re-render the
    // page in the action's response, which would sweep away the form saying why (a conflict's
    // "who acted first" and its reload offer) along with the controls the new state no longer has.
    if (result.ok) await markWrote();
    return result;
  };
}

/** The one refusal rule (requireScope), as an action result with a sentence for people. */
function deny(viewer: Viewer | null, scope: Scope): ActionResult<never> | null {
  try {
    requireScope(viewer, scope);
    return null;
  } catch (error) {
    if (!(error instanceof AuthError)) throw error;
    return {
      ok: false,
      status: error.status,
      error:
        error.status === 401
          ? "Sign in first."
          : `${error.message.charAt(0).toUpperCase()}${error.message.slice(1)}.`,
    };
  }
}
