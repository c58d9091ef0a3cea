import pg from "pg";
import { describe, expect, it } from "vitest";
import { withTransaction } from "../db/client";
import { setUpTestDatabase } from "../db/testing/database";
import { writeCheckpoint } from "../lib/server/commands/write-checkpoint";
import { appendLedger } from "../lib/server/ledger/append-ledger";
import { generateSigningKey, parsePrivateKey, parsePublicKey } from "../lib/server/ledger/signing";
import { runLedgerVerifyPass, VERIFY_LOCK, verifyPassOn } from "./ledger-verify";

const t = await setUpTestDatabase("ledger-verify");

const append = (stream: string, n: number) =>
  withTransaction(t.pool, (c) =>
    appendLedger(
      c,
      stream,
      Array.from({ length: n }, (_, i) => ({ kind: "note.added", actor: "t", data: { i } })),
    ),
  );

const state = async () =>
  (
    await t.pool.query<{
      through_id: number;
      ok: boolean;
      mode: string;
      problems: { entryId: number; problem: string }[];
      full_at: Date | null;
      checkpoint_at: Date | null;
    }>("select through_id, ok, mode, problems, full_at, checkpoint_at from ledger_verifications")
  ).rows;

describe("the periodic ledger verify", () => {
  it("verifies in full first, then only what was appended since, and records through which entry", async () => {
    const first = await append("test:a", 3);
    const full = await runLedgerVerifyPass(t.pool, { settleMs: 0 });
    expect(full).toMatchObject({ mode: "full", ok: true });
    const [afterFull] = await state();
    expect(afterFull).toMatchObject({ mode: "full", ok: true, problems: [] });
    expect(afterFull?.through_id).toBeGreaterThanOrEqual(first.at(-1)?.id ?? Infinity);

    const more = [...(await append("test:a", 2)), ...(await append("test:b", 2))];
    const inc = await runLedgerVerifyPass(t.pool, { settleMs: 0 });
    expect(inc).toMatchObject({ mode: "incremental", ok: true, entriesChecked: 4 });
    expect((await state())[0]?.through_id).toBe(more.at(-1)?.id);

    // Nothing new: an incremental pass checks nothing and stays where it was.
    expect(await runLedgerVerifyPass(t.pool, { settleMs: 0 })).toMatchObject({
      mode: "incremental",
      entriesChecked: 0,
      throughId: more.at(-1)?.id,
    });
  });

  it("leaves entries younger than the settle time for the next pass", async () => {
    const [before] = await state();
    await append("test:c", 2);
    const pass = await runLedgerVerifyPass(t.pool, { settleMs: 3_600_000 });
    expect(pass).toMatchObject({ mode: "incremental", entriesChecked: 0 });
    expect((await state())[0]?.through_id).toBe(before?.through_id);
  });

  it("names an altered new entry and stays red until a full pass finds the ledger whole", async () => {
    await runLedgerVerifyPass(t.pool, { settleMs: 0 });
    const [victim] = await append("test:d", 2);
    await t.asSuperuserRolledBack(async (c) => {
      await c.query("set local session_replication_role = replica");
      await c.query(`update ledger_entries set data = '{"i": 99}' where id = $1`, [victim?.id]);
      const broken = await verifyPassOn(c, { settleMs: 0 });
      expect(broken).toMatchObject({ mode: "incremental", ok: false });
      expect(broken?.problems).toEqual([
        expect.objectContaining({ entryId: victim?.id, problem: "hash_mismatch" }),
      ]);
      const recorded = await c.query<{ ok: boolean; problems: { problem: string }[] }>(
        "select ok, problems from ledger_verifications",
      );
      expect(recorded.rows[0]?.ok).toBe(false);
      expect(recorded.rows[0]?.problems[0]?.problem).toBe("hash_mismatch");
      // A later incremental pass that finds nothing wrong does not paper over the failure.
      const again = await verifyPassOn(c, { settleMs: 0 });
      expect(again).toMatchObject({ mode: "incremental", ok: true });
      const still = await c.query<{ ok: boolean; problems: unknown[] }>(
        "select ok, problems from ledger_verifications",
      );
      expect(still.rows[0]?.ok).toBe(false);
      expect(still.rows[0]?.problems).toHaveLength(1);
      // The full pass re-reads everything and still finds it broken.
      const full = await verifyPassOn(c, { settleMs: 0, forceFull: true });
      expect(full).toMatchObject({ mode: "full", ok: false });
    });
    // Rolled back: the ledger is whole, and a full pass says so.
    expect(await runLedgerVerifyPass(t.pool, { settleMs: 0, forceFull: true })).toMatchObject({
      mode: "full",
      ok: true,
    });
    expect((await state())[0]).toMatchObject({ ok: true, problems: [] });
  });

  it("lets one process verify at a time: another pass meanwhile does nothing", async () => {
    const holder = await t.pool.connect();
    try {
      await holder.query("select pg_advisory_lock($1, $2)", [...VERIFY_LOCK]);
      expect(await runLedgerVerifyPass(t.pool, { settleMs: 0 })).toBeNull();
    } finally {
      await holder.query("select pg_advisory_unlock($1, $2)", [...VERIFY_LOCK]);
      holder.release();
    }
    expect(await runLedgerVerifyPass(t.pool, { settleMs: 0 })).not.toBeNull();
  });

  it("reads one snapshot: an append while a full pass runs is not entries missing", async () => {
    await append("test:race", 2);
    // After the pass has read its first batch of entries (which holds test:race whole), another
    // transaction appends to test:race; the pass reads the stream heads later.
    const original = pg.Client.prototype.query;
    // biome-ignore lint/suspicious/noExplicitAny: pg's query is overloaded many ways; this passes every form through.
    pg.Client.prototype.query = function (this: pg.Client, ...args: any[]) {
      const text = typeof args[0] === "string" ? args[0] : args[0]?.text;
      const result = original.apply(this, args as Parameters<typeof original>);
      if (
        typeof text !== "string" ||
        !/from ledger_entries\s+order by stream, seq limit/.test(text)
      )
        return result;
      pg.Client.prototype.query = original;
      return (result as unknown as Promise<unknown>).then(async (rows) => {
        await append("test:race", 1);
        return rows;
      });
    } as typeof original;
    try {
      const pass = await runLedgerVerifyPass(t.pool, { settleMs: 0, forceFull: true });
      expect(pass).toMatchObject({ mode: "full", ok: true, problems: [] });
    } finally {
      pg.Client.prototype.query = original;
    }
    const { rows } = await t.pool.query(
      "select head_seq from ledger_streams where stream = 'test:race'",
    );
    expect(rows[0]?.head_seq).toBe(3);
  });

  it("with a key, the daily pass starts from the latest signed checkpoint and says so; after a failure it is full", async () => {
    const keys = generateSigningKey();
    const publicKey = parsePublicKey(keys.publicKey);
    await append("test:cp", 4);
    await writeCheckpoint(t.pool, { actor: "test", signingKey: parsePrivateKey(keys.privateKey) });
    const after = await append("test:cp", 2);
    const { rows: counted } = await t.pool.query<{ entries: number; streams: number }>(
      "select (select count(*)::int from ledger_entries) as entries, (select count(*)::int from ledger_streams) as streams",
    );
    const total = counted[0]?.entries ?? 0;
    const streams = counted[0]?.streams ?? 0;

    const daily = await runLedgerVerifyPass(t.pool, { settleMs: 0, publicKey, forceDaily: true });
    // Each checkpointed head (the system stream's came with the checkpoint, so it has none), the
    // heads chunk, the checkpoint itself and the two entries after it: not the whole ledger.
    expect(daily).toMatchObject({ mode: "checkpoint", ok: true, entriesChecked: streams + 3 });
    expect(streams + 3).toBeLessThan(total);
    const [recorded] = await state();
    expect(recorded).toMatchObject({ mode: "checkpoint", ok: true });
    expect(recorded?.checkpoint_at).not.toBeNull();
    expect(recorded?.through_id).toBeGreaterThanOrEqual(after.at(-1)?.id ?? Infinity);

    // Altered after the checkpoint: the pass from it finds the entry the full pass would.
    await t.asSuperuserRolledBack(async (c) => {
      await c.query("set local session_replication_role = replica");
      await c.query(`update ledger_entries set data = '{"i": 7}' where id = $1`, [after[0]?.id]);
      const broken = await verifyPassOn(c, { settleMs: 0, publicKey, forceDaily: true });
      expect(broken).toMatchObject({ mode: "checkpoint", ok: false });
      expect(broken?.problems).toEqual([
        expect.objectContaining({ entryId: after[0]?.id, problem: "hash_mismatch" }),
      ]);
      // Red now: the next daily pass re-reads everything, since only that can clear it.
      const next = await verifyPassOn(c, { settleMs: 0, publicKey, forceDaily: true });
      expect(next).toMatchObject({ mode: "full", ok: false, entriesChecked: total });
    });
  });
});
