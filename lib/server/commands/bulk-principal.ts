// A bulk action runs later than its confirmation (in the background runner), for the people who
// confirmed it: their principals are stored with it and read back here. Scopes are re-read
// through the vocabulary, so a scope that no longer exists is simply not held.
import { z } from "zod";
import { isScope, type Principal, type Scope } from "../../domain/access";
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

export function bulkStream(bulkId: string): string {
  return `bulk:${bulkId}`;
}
