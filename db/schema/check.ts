import { sql } from "drizzle-orm";

/** A check constraint's `in (…)` list from a vocabulary in lib/domain (plain words, never input). */
export const inList = (values: readonly string[]) =>
  sql.raw(values.map((v) => `'${v}'`).join(", "));
