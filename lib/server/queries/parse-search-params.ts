// Turns a page's raw searchParams into typed input with a zod schema, or into sentences a
// person can act on. A malformed URL is the visitor's mistake, never a server error.
import type { z } from "zod";

export type SearchParams = Record<string, string | string[] | undefined>;

export type ParsedSearchParams<T> = { ok: true; data: T } | { ok: false; errors: string[] };

export function parseSearchParams<S extends z.ZodType>(
  schema: S,
  raw: SearchParams,
): ParsedSearchParams<z.output<S>> {
  const single: Record<string, string> = {};
  const errors: string[] = [];
  for (const [name, value] of Object.entries(raw)) {
    if (Array.isArray(value)) {
      errors.push(`"${name}" appears ${value.length} times in the address; give it once.`);
    } else if (value !== undefined && value !== "") {
      // An empty field from a GET form means "no filter", not "filter by the empty string".
      single[name] = value;
    }
  }
  const result = schema.safeParse(single);
  if (!result.success) {
    for (const issue of result.error.issues) {
      const name = issue.path.map(String).join(".");
      errors.push(name ? `"${name}" ${issue.message}` : issue.message);
    }
  }
  if (errors.length > 0 || !result.success) return { ok: false, errors };
  return { ok: true, data: result.data };
}

/** A request address's search params as a page receives them: a repeated name as a list. */
export function searchParamsOf(url: string): SearchParams {
  const raw: SearchParams = {};
  for (const [name, value] of new URL(url).searchParams) {
    const seen = raw[name];
    raw[name] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
  }
  return raw;
}
