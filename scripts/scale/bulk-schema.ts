// Indexes and keys off while the scale loader writes, back on after. Maintaining a dozen
// btrees row by row (random uuids and stream names at that) is most of a load's time; one
// sorted build per index afterwards is a fraction of it. The set is read from the catalog
// (pg_get_indexdef / pg_get_constraintdef), never written down here, so it is always exactly
// what the migrations made, including migrations added after this script. Re-adding a primary
// key, a unique index or a foreign key makes PostgreSQL check it over the whole table, so the
// loaded data obeys every constraint it would have obeyed row by row; CHECK and NOT NULL
// constraints and the append-only triggers (UPDATE/DELETE only) stay in place throughout.
import type pg from "pg";

/** The tables the loader fills. */
export const LOADED_TABLES = [
  "tasks",
  "effects",
  "steps",
  "ledger_streams",
  "ledger_entries",
] as const;

export type BulkSchema = {
  /** Primary keys, unique and exclusion constraints of the loaded tables. */
  keys: { table: string; name: string; def: string }[];
  /** Indexes of the loaded tables that no key owns. */
  indexes: { name: string; def: string }[];
  /** Foreign keys from or to the loaded tables (a key cannot go while one points at it). */
  foreignKeys: { table: string; name: string; def: string }[];
  /**
   * Loaded tables (a partitioned one's partitions) whose autovacuum is paused for the load
   * (those without a setting of their own).
   */
  autovacuumPaused: string[];
};

export async function readBulkSchema(client: pg.ClientBase): Promise<BulkSchema> {
  const tables = [...LOADED_TABLES];
  const constraints = await client.query<{
    table: string;
    name: string;
    def: string;
    kind: string;
  }>(
    `select c.conrelid::regclass::text as table, quote_ident(c.conname) as name,
            pg_get_constraintdef(c.oid) as def, c.contype::text as kind
     from pg_constraint c
     where (c.contype in ('p', 'u', 'x') and c.conrelid = any($1::text[]::regclass[]))
        or (c.contype = 'f' and (c.conrelid = any($1::text[]::regclass[]) or c.confrelid = any($1::text[]::regclass[])))
     order by c.conrelid::regclass::text, c.conname`,
    [tables],
  );
  const indexes = await client.query<{ name: string; def: string }>(
    // A partitioned table's index reads back as ON ONLY (the parent alone, left invalid until
    // each partition's is attached): built plainly, it is built on every partition.
    `select i.indexrelid::regclass::text as name,
            regexp_replace(pg_get_indexdef(i.indexrelid), ' ON ONLY ', ' ON ') as def
     from pg_index i
     where i.indrelid = any($1::text[]::regclass[])
       and not exists (select 1 from pg_constraint c
                       where c.conindid = i.indexrelid and c.contype in ('p', 'u', 'x'))
     order by 1`,
    [tables],
  );
  const pick = (kinds: string[]) =>
    constraints.rows
      .filter((c) => kinds.includes(c.kind))
      .map(({ table, name, def }) => ({ table, name, def }));
  const plain = await client.query<{ table: string }>(
    // A partitioned table has no storage of its own (ledger_entries, migration 0055): its
    // partitions are paused instead.
    `select c.oid::regclass::text as table from pg_class c
     where (c.oid = any($1::text[]::regclass[])
            or c.oid in (select inhrelid from pg_inherits where inhparent = any($1::text[]::regclass[])))
       and c.relkind = 'r'
       and not exists (select 1 from unnest(coalesce(c.reloptions, '{}')) o where o like 'autovacuum_enabled=%')
     order by 1`,
    [tables],
  );
  return {
    keys: pick(["p", "u", "x"]),
    indexes: indexes.rows,
    foreignKeys: pick(["f"]),
    autovacuumPaused: plain.rows.map((r) => r.table),
  };
}

/** The statements that put `schema` back, in an order that works (keys before what needs them). */
export function restoreStatements(schema: BulkSchema): {
  keys: string[];
  indexes: string[];
  foreignKeys: string[];
} {
  const add = (c: BulkSchema["keys"][number]) =>
    `alter table ${c.table} add constraint ${c.name} ${c.def}`;
  return {
    keys: schema.keys.map(add),
    indexes: schema.indexes.map((i) => `${i.def}`),
    foreignKeys: schema.foreignKeys.map(add),
  };
}

/** Drops what `schema` lists, in one transaction (all of it, or nothing). */
export async function dropBulkSchema(client: pg.ClientBase, schema: BulkSchema): Promise<void> {
  await client.query("begin");
  try {
    for (const f of schema.foreignKeys)
      await client.query(`alter table ${f.table} drop constraint ${f.name}`);
    for (const k of schema.keys)
      await client.query(`alter table ${k.table} drop constraint ${k.name}`);
    for (const i of schema.indexes) await client.query(`drop index ${i.name}`);
    // The load ends with its own VACUUM ANALYZE; autovacuum chasing the inserts only competes.
    for (const t of schema.autovacuumPaused)
      await client.query(`alter table ${t} set (autovacuum_enabled = false)`);
    await client.query("commit");
  } catch (err) {
    await client.query("rollback").catch(() => undefined);
    throw err;
  }
}

/**
 * Re-creates `schema`: keys, then the other indexes two at a time (CREATE INDEX takes a share
 * lock, so two builds on one table do not wait for each other; two cores here), then the
 * foreign keys, each validated over the whole table as it is added.
 */
export async function restoreBulkSchema(
  pool: pg.Pool,
  schema: BulkSchema,
  opts: { maintenanceWorkMem?: string; log?: (line: string) => void } = {},
): Promise<void> {
  const steps = restoreStatements(schema);
  const run = async (sql: string) => {
    const client = await pool.connect();
    try {
      if (opts.maintenanceWorkMem)
        await client.query(`set maintenance_work_mem = '${opts.maintenanceWorkMem}'`);
      const t = performance.now();
      await client.query(sql);
      opts.log?.(`${((performance.now() - t) / 1000).toFixed(1)} s  ${sql}`);
    } finally {
      client.release();
    }
  };
  for (const sql of steps.keys) await run(sql);
  const queue = [...steps.indexes];
  const worker = async () => {
    for (let sql = queue.shift(); sql !== undefined; sql = queue.shift()) await run(sql);
  };
  await Promise.all([worker(), worker()]);
  for (const sql of steps.foreignKeys) await run(sql);
  for (const t of schema.autovacuumPaused)
    await pool.query(`alter table ${t} reset (autovacuum_enabled)`);
}
