// A screen's filter as its address holds it. The address is the one source of a filter: the
// form's fields are filled from it, and the form is keyed by it, so back and forward (which
// re-render the page from another address without remounting it) put the fields back too.

export type RawSearchParams = Record<string, string | string[] | undefined>;

/** The named fields the address sets, trimmed; empty and repeated fields are left out. */
export function filterValues(
  raw: RawSearchParams,
  names: readonly string[],
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names) {
    const value = raw[name];
    if (typeof value === "string" && value.trim() !== "") out[name] = value.trim();
  }
  return out;
}

/** One string per distinct filter, whatever order the address wrote its fields in. */
export function filterKey(values: Record<string, string | undefined>): string {
  const query = new URLSearchParams();
  for (const name of Object.keys(values).sort()) {
    const value = values[name];
    if (value !== undefined && value !== "") query.set(name, value);
  }
  return query.toString();
}
