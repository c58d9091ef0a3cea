// An admin setting kept one row per key with a version (a tool's rate limit, an agent's daily
// budget, a model's price): set, changed on the version the admin loaded, or cleared. A stale
// form is refused, never overwritten: the row is locked while it is read, and a first save
// racing another finds the insert's conflict guarded by the version it saw (null for none).
// The callers record the change (`policy.changed`) in the same transaction.
import type pg from "pg";
import { type CommandResult, conflict, invalid } from "../../domain/command-result";

export type VersionedSetting = {
  /** The table and its key column: constants of the caller, never input. */
  table: "tool_rate_limits" | "spend_caps" | "model_prices";
  keyColumn: "tool" | "agent" | "model";
  /** The other columns the row keeps, as the caller reads them before and writes them. */
  columns: readonly string[];
  /** How the refusals name it: "the price of gpt-4o". */
  what: string;
  /** The refusal of a clear when there is nothing to clear: "gpt-4o has no admin price to clear". */
  nothingToClear: string;
};

export type SavedSetting<Row> = {
  /** The row before the change; undefined when there was none. */
  current: Row | undefined;
  /** The version saved; null when the change cleared the row. */
  saved: number | null;
};

/**
 * Saves `values` (by `setting.columns`, in order) for `key` on the `version` loaded, or clears the
 * row when `values` is null. Returns the row as it was and the version saved, or the refusal.
 */
export async function saveVersionedSetting<Row extends { version: number }>(
  client: pg.PoolClient,
  setting: VersionedSetting,
  change: { key: string; version: number | null; values: readonly unknown[] | null; actor: string },
): Promise<CommandResult<SavedSetting<Row>>> {
  const { table, keyColumn, what } = setting;
  const columns = setting.columns.map((c) => `"${c}"`);
  const { rows } = await client.query<Row>(
    `select ${[...columns, "version"].join(", ")} from ${table} where ${keyColumn} = $1 for update`,
    [change.key],
  );
  const current = rows[0];
  if ((current?.version ?? null) !== change.version) {
    return conflict(
      current
        ? `${what} changed since you loaded it (now version ${current.version})`
        : `${what} was cleared since you loaded it`,
    );
  }
  if (change.values === null) {
    if (!current) return invalid(setting.nothingToClear);
    await client.query(`delete from ${table} where ${keyColumn} = $1`, [change.key]);
    return { ok: true, value: { current, saved: null } };
  }
  const n = columns.length;
  const placeholders = columns.map((_, i) => `$${i + 2}`);
  const upsert = await client.query<{ version: number }>(
    `insert into ${table} (${keyColumn}, ${columns.join(", ")}, updated_by)
     values ($1, ${placeholders.join(", ")}, $${n + 2})
     on conflict (${keyColumn}) do update set
       ${columns.map((c) => `${c} = excluded.${c}`).join(", ")},
       updated_by = excluded.updated_by, updated_at = now(), version = ${table}.version + 1
     where ${table}.version = $${n + 3}
     returning version`,
    [change.key, ...change.values, change.actor, change.version],
  );
  const saved = upsert.rows[0]?.version ?? null;
  if (saved === null) return conflict(`${what} changed since you loaded it`);
  return { ok: true, value: { current, saved } };
}
