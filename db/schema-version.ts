// Whether the database's schema is the one this code was built for: the migrations it ships
// (db/migrations/meta/_journal.json) against those the database applied
// (drizzle.__drizzle_migrations). A worker or dashboard on a schema it does not know refuses to
// start: behind, it would write to columns that are not there; ahead, a newer release may have
// changed what a row means. drizzle names an applied migration by its journal timestamp
// (created_at = the entry's `when`) and applies only those later than the latest applied, so the
// timestamps are what is compared; the hashes say whether the file applied is the one shipped.
import { readFileSync } from "node:fs";
import path from "node:path";
import { readMigrationFiles } from "drizzle-orm/migrator";
import { z } from "zod";
import type { SqlClient } from "./client";
import { MIGRATIONS_FOLDER } from "./migrate";

export type ShippedMigration = { tag: string; when: number; hash: string };
export type AppliedMigration = { hash: string; createdAt: number };
export type SchemaState = "current" | "behind" | "ahead";

export type SchemaCheck = {
  state: SchemaState;
  /** What the database applied; `latest` is the tag of its newest migration this code knows. */
  applied: { count: number; latest: string | null; unknown: number };
  /** What this code ships. */
  expected: { count: number; latest: string | null };
  /** Tags applied from a file other than the one shipped (edited after it ran): said, not refused. */
  changed: string[];
  message: string;
};

export class SchemaVersionError extends Error {
  override readonly name = "SchemaVersionError";
  constructor(readonly check: SchemaCheck) {
    super(check.message);
  }
}

/**
 * This release, as the package names it (the messages say which version is the older). Read, not
 * imported: db/ imports nothing above itself, and the package's root holds package.json beside
 * db/ as beside a built dist/.
 */
export const CODE_VERSION: string = (() => {
  try {
    const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
    return z.object({ version: z.string() }).parse(pkg).version;
  } catch {
    return "(unknown version)";
  }
})();

const journalSchema = z.object({
  entries: z.array(z.object({ idx: z.number(), when: z.number(), tag: z.string() })),
});

/** The migrations this code ships, in journal order, hashed as drizzle's migrator hashes them. */
export function shippedMigrations(folder = MIGRATIONS_FOLDER): ShippedMigration[] {
  const journal = journalSchema.parse(
    JSON.parse(readFileSync(path.join(folder, "meta", "_journal.json"), "utf8")),
  );
  const files = readMigrationFiles({ migrationsFolder: folder });
  return journal.entries.map((e, i) => ({
    tag: e.tag,
    when: e.when,
    hash: files[i]?.hash ?? "",
  }));
}

/** The number a tag starts with ("0031" of "0031_counter_triggers"). */
const numberOf = (tag: string) => tag.split("_", 1)[0] ?? tag;

/** Pure: the verdict for `who` ("worker", "dashboard") from the two lists. */
export function compareMigrations(
  shipped: readonly ShippedMigration[],
  applied: readonly AppliedMigration[],
  who = "worker",
): SchemaCheck {
  const byWhen = new Map(shipped.map((m, i) => [m.when, { ...m, index: i }]));
  const appliedWhen = new Set(applied.map((a) => a.createdAt));
  const sorted = [...applied].sort((a, b) => a.createdAt - b.createdAt);
  const known = sorted.flatMap((a) => byWhen.get(a.createdAt) ?? []);
  const unknown = sorted
    .map((a, position) => ({ ...a, position }))
    .filter((a) => !byWhen.has(a.createdAt));
  const missing = shipped.filter((m) => !appliedWhen.has(m.when));
  const changed = sorted.flatMap((a) => {
    const m = byWhen.get(a.createdAt);
    return m && m.hash !== a.hash ? [m.tag] : [];
  });
  const latestKnown = known.at(-1)?.tag ?? null;
  const target = shipped.at(-1)?.tag ?? null;
  const base = {
    applied: { count: applied.length, latest: latestKnown, unknown: unknown.length },
    expected: { count: shipped.length, latest: target },
    changed,
  };

  const first = unknown[0];
  if (first) {
    const number = String(first.position).padStart(4, "0");
    const at = new Date(first.createdAt).toISOString();
    return {
      ...base,
      state: "ahead",
      message: `the database was migrated by a newer agent-ledger (migration ${number} of ${at}${unknown.length > 1 ? ` and ${unknown.length - 1} more` : ""} unknown to this version ${CODE_VERSION}, which knows up to ${target === null ? "none" : numberOf(target)}): upgrade this ${who}`,
    };
  }
  if (missing.length > 0 && target !== null) {
    const at =
      latestKnown === null
        ? "has no agent-ledger migration applied"
        : `is at migration ${numberOf(latestKnown)} (${latestKnown})`;
    const latestIndex = known.at(-1)?.index ?? -1;
    // drizzle applies only what is newer than the latest applied: a hole stays a hole.
    const holes = missing.filter((m) => (byWhen.get(m.when)?.index ?? 0) < latestIndex);
    const hole =
      holes.length > 0
        ? ` (${holes.map((m) => m.tag).join(", ")} missing below the latest applied: \`agent-ledger migrate\` will not fill ${holes.length > 1 ? "them" : "it"}; apply by hand)`
        : "";
    return {
      ...base,
      state: "behind",
      message: `the database schema ${at}; this ${who} needs ${numberOf(target)} (${target})${hole}: run \`agent-ledger migrate\``,
    };
  }
  const drift =
    changed.length > 0
      ? `; applied from files since edited: ${changed.join(", ")} (not re-applied, not refused)`
      : "";
  return {
    ...base,
    state: "current",
    message: `the database schema is current (${target ?? "no migrations"})${drift}`,
  };
}

const appliedRowSchema = z.object({ hash: z.string(), created_at: z.coerce.number() });

/** What the database applied; none when drizzle's table is not there (never migrated). */
export async function appliedMigrations(client: SqlClient): Promise<AppliedMigration[]> {
  const exists = await client.query<{ n: number }>(
    `select count(*)::int as n from information_schema.tables
      where table_schema = 'drizzle' and table_name = '__drizzle_migrations'`,
  );
  if ((exists.rows[0]?.n ?? 0) === 0) return [];
  const { rows } = await client.query(
    "select hash, created_at from drizzle.__drizzle_migrations order by created_at, id",
  );
  return rows.map((r) => {
    const row = appliedRowSchema.parse(r);
    return { hash: row.hash, createdAt: row.created_at };
  });
}

export type CheckSchemaOptions = {
  /** Who is asking, for the message ("worker", "dashboard"). */
  who?: string;
  /** The migrations folder; the one this code ships by default (tests pass a partial one). */
  migrationsFolder?: string;
};

export async function checkSchema(
  client: SqlClient,
  options: CheckSchemaOptions = {},
): Promise<SchemaCheck> {
  return compareMigrations(
    shippedMigrations(options.migrationsFolder),
    await appliedMigrations(client),
    options.who,
  );
}

/** Throws SchemaVersionError unless the schema is current; returns the check when it is. */
export async function assertSchemaCurrent(
  client: SqlClient,
  options: CheckSchemaOptions = {},
): Promise<SchemaCheck> {
  const check = await checkSchema(client, options);
  if (check.state !== "current") throw new SchemaVersionError(check);
  return check;
}
