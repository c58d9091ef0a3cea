// "Nothing is written": every table's row count and a digest of its rows, before and after a
// call that may not write.
import type pg from "pg";

/** Sign-in attempts are recorded whoever makes them (that is the brute-force lock's input). */
const NOT_COMPARED = new Set(["login_attempts"]);

/** Columns a read may legitimately touch (token last-used times) are left out. */
const PROJECTIONS: Record<string, string> = {
  api_tokens: "id, name, hash, scopes, created_by, revoked_at, revoked_by",
  sessions: "id, token, user_id",
};

/** Every table's row count and a digest of its rows: any insert, update or delete shows. */
export async function snapshot(db: pg.Pool): Promise<Record<string, string>> {
  const { rows: tables } = await db.query<{ name: string }>(
    `select table_name as name from information_schema.tables
     where table_schema = 'public' and table_type = 'BASE TABLE' order by table_name`,
  );
  const out: Record<string, string> = {};
  for (const { name } of tables) {
    if (NOT_COMPARED.has(name)) continue;
    const columns = PROJECTIONS[name] ?? "*";
    const { rows } = await db.query<{ n: number; digest: string }>(
      `select count(*)::int as n,
              md5(coalesce(string_agg(md5(t::text), '' order by md5(t::text)), '')) as digest
       from (select ${columns} from "${name}") t`,
    );
    out[name] = `${rows[0]?.n} rows, ${rows[0]?.digest}`;
  }
  return out;
}

/** Tables whose snapshot changed, with before → after. */
export function changedTables(
  before: Record<string, string>,
  after: Record<string, string>,
): string[] {
  const names = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...names]
    .filter((n) => before[n] !== after[n])
    .map((n) => `${n}: ${before[n] ?? "absent"} → ${after[n] ?? "absent"}`);
}

/**
 * Waits until the web server's bulk runner has nothing left to do: a bulk action a call just
 * confirmed acts on its tasks in the background, and those writes belong to that call, not to
 * the next principal's "writes nothing" check.
 */
export async function backgroundSettled(db: pg.Pool, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await db.query<{ n: number }>(
      `select count(*)::int as n from bulk_action_members m join bulk_actions b on b.id = m.bulk_id
       where m.status = 'pending' and b.status = 'running'`,
    );
    if ((rows[0]?.n ?? 0) === 0) return;
    if (Date.now() > deadline) throw new Error("the bulk runner did not finish within 30 s");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
