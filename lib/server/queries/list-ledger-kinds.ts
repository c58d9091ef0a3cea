// The kinds the ledger holds, for the kind picker and for expanding a prefix (effect.*). A loose
// index scan: one probe of ledger_entries_kind_at_idx per distinct kind ("the next kind after
// this one"), so it costs dozens of index lookups at ten million entries, not a scan of them.
import { sql } from "drizzle-orm";
import { requireScope, type Viewer } from "../../domain/access";
import type { DbReader } from "./db-reader";

/** Kinds are few (dozens); past this the picker would be no help anyway. */
const MAX_KINDS = 500;

export async function listLedgerKinds(db: DbReader, viewer: Viewer | null): Promise<string[]> {
  requireScope(viewer, "ledger:read");
  return readLedgerKinds(db);
}

/** For a query that has authorized its viewer already. */
export async function readLedgerKinds(db: DbReader): Promise<string[]> {
  const { rows } = await db.execute<{ kind: string }>(sql`
    with recursive kinds(kind, n) as (
      (select kind, 1 from ledger_entries order by kind limit 1)
      union all
      select (select e.kind from ledger_entries e where e.kind > kinds.kind order by e.kind limit 1),
             n + 1
        from kinds
       where kinds.kind is not null and n < ${MAX_KINDS}
    )
    select kind from kinds where kind is not null`);
  return rows.map((r) => r.kind);
}
