// ledger_entries partitioned by its streams' month (migration 0055): where entries go, the
// partitions made ahead, and ledger_detach_month, which lets a month go only once every stream
// opened in it is archived.
import { describe, expect, it } from "vitest";
import { withTransaction } from "../../../db/client";
import { setUpTestDatabase } from "../../../db/testing/database";
import { GENESIS_HASH } from "../../domain/hash";
import { appendLedger, SYSTEM_STREAM, taskStream } from "./append-ledger";
import { archiveClosedTasks, taskOpenedAt as openedTask } from "./archive-testing";
import { ensureLedgerPartitions } from "./partitions";

const t = await setUpTestDatabase("partitions");

/** The partition holding each of `stream`'s entries. */
async function partitionsOf(stream: string): Promise<string[]> {
  const { rows } = await t.ownerPool.query<{ part: string }>(
    "select distinct tableoid::regclass::text as part from ledger_entries where stream = $1",
    [stream],
  );
  return rows.map((r) => r.part);
}

async function exists(table: string): Promise<boolean> {
  const { rows } = await t.ownerPool.query<{ found: string | null }>(
    "select to_regclass($1)::text as found",
    [table],
  );
  return rows[0]?.found != null;
}

const taskOpenedAt = (openedAt: string, n: number) => openedTask(t.pool, openedAt, n);

const detach = (month: string) =>
  t.pool.query<{ n: number }>("select ledger_detach_month($1::date) as n", [month]);

describe("ledger partitions", () => {
  it("keeps a task's entries in its stream's month and every other stream's apart", async () => {
    const id = await taskOpenedAt(new Date().toISOString(), 2);
    await withTransaction(t.pool, (c) =>
      appendLedger(c, SYSTEM_STREAM, { kind: "policy.changed", actor: "test", data: {} }),
    );
    const now = new Date();
    const month = `y${now.getUTCFullYear()}m${String(now.getUTCMonth() + 1).padStart(2, "0")}`;
    expect(await partitionsOf(taskStream(id))).toEqual([`ledger_entries_${month}`]);
    expect(await partitionsOf(SYSTEM_STREAM)).toEqual(["ledger_entries_unarchivable"]);
  });

  it("makes the months ahead once, and skips a month whose entries sit in the default partition", async () => {
    // The migration made this month and the two after it.
    expect(await ensureLedgerPartitions(t.pool)).toBe(0);
    await t.ownerPool.query(
      `insert into ledger_entries (stream, seq, at, kind, actor, data, hash, month)
       values ('task:stray', 1, now(), 'note.added', 'test', '{}', $1, '2031-05-01')`,
      [GENESIS_HASH],
    );
    expect(await partitionsOf("task:stray")).toEqual(["ledger_entries_default"]);
    const made = await t.pool.query<{ n: number }>(
      "select ledger_ensure_partitions('2031-06-20', '2031-05-01') as n",
    );
    expect(made.rows[0]?.n).toBe(1);
    expect(await exists("ledger_entries_y2031m05")).toBe(false);
    expect(await exists("ledger_entries_y2031m06")).toBe(true);
    // A partition is reached only through ledger_entries: the app has no grant on it.
    await expect(t.pool.query("select 1 from ledger_entries_y2031m06")).rejects.toMatchObject({
      code: "42501",
    });
  });

  it("detaches a past month only once every stream opened in it is archived", async () => {
    await t.pool.query("select ledger_ensure_partitions('2026-09-01', '2026-09-01')");
    const archived = await taskOpenedAt("2026-09-10T12:00:00Z", 3);
    const open = await taskOpenedAt("2026-09-20T12:00:00Z", 2);
    // Still open: closed after the archive's cut-off, so it is not archived.
    await t.pool.query("update tasks set status_changed_at = now() where id = $1", [open]);
    // The entries kept: the detach is called by hand here (archive-detach.test.ts: by archive).
    await archiveClosedTasks(t.pool, new Date("2026-10-01T00:00:00Z"), undefined, true);
    await expect(detach("2026-09-01")).rejects.toMatchObject({
      code: "LA002",
      message: expect.stringMatching(/2026-09-01 has 1 stream\(s\) not archived/),
    });
    expect(await partitionsOf(taskStream(open))).toEqual(["ledger_entries_y2026m09"]);

    await archiveClosedTasks(t.pool, new Date(), undefined, true);
    const before = await appendLedger(t.pool, SYSTEM_STREAM, {
      kind: "note.added",
      actor: "test",
    });
    expect((await detach("2026-09-01")).rows[0]?.n).toBe(5);
    expect(await exists("ledger_entries_y2026m09")).toBe(false);
    expect(await partitionsOf(taskStream(archived))).toEqual([]);
    expect(await partitionsOf(taskStream(open))).toEqual([]);
    // The heads stay (the archive's files hold the entries); other streams go on.
    const { rows } = await t.pool.query<{ n: number }>(
      "select count(*)::int as n from ledger_streams where month = '2026-09-01' and archived_in is not null",
    );
    expect(rows[0]?.n).toBe(2);
    const after = await appendLedger(t.pool, SYSTEM_STREAM, { kind: "note.added", actor: "test" });
    expect(after[0]?.seq).toBe((before[0]?.seq ?? 0) + 1);
    const fresh = await taskOpenedAt(new Date().toISOString(), 1);
    expect(await partitionsOf(taskStream(fresh))).toHaveLength(1);
  });

  it.each([
    ["the unarchivable streams", "1970-01-01", /not the first day of a month since 2000/],
    ["a day that is not a month's first", "2026-09-02", /not the first day of a month/],
    ["the current month", "current", /not over yet/],
    ["a month without a partition of its own", "2026-08-01", /no partition of its own/],
  ])("refuses %s", async (_, month, message) => {
    const m =
      month === "current" ? `${new Date().toISOString().slice(0, 7)}-01` : (month as string);
    await expect(detach(m)).rejects.toMatchObject({
      code: "LA002",
      message: expect.stringMatching(message),
    });
  });
});
