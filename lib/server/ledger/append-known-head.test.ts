import { describe, expect, it } from "vitest";
import { withTransaction } from "../../../db/client";
import { setUpTestDatabase } from "../../../db/testing/database";
import { appendOnKnownHead, type HeadRef, noteAppended } from "./append-known-head";
import { appendLedger } from "./append-ledger";
import { verifyLedger } from "./verify-ledger";

const t = await setUpTestDatabase("known_head");
await t.superPool.query("create table kh_marks (stream text, n int)");
await t.superPool.query("grant select, insert on kh_marks to agent_ledger_app");

/** A state change (one row in kh_marks) that goes with its entry, as the runtime's do. */
const mark = (stream: string, n: number, when = "true") => ({
  name: `kh_mark_${when === "true" ? "always" : "never"}`,
  ctes: "marked as (insert into kh_marks (stream, n) values ($1, $2) returning 1)",
  values: [stream, n],
  when,
  select: "(select count(*) from marked)::int as marked",
});
const entry = (n: number) => ({ kind: "test.known_head", actor: "worker:kh", data: { n } });

async function marks(stream: string): Promise<number[]> {
  const { rows } = await t.pool.query<{ n: number }>(
    "select n from kh_marks where stream = $1 order by n",
    [stream],
  );
  return rows.map((r) => r.n);
}

async function seqs(stream: string): Promise<number[]> {
  const { rows } = await t.pool.query<{ seq: number }>(
    "select seq::int from ledger_entries where stream = $1 order by seq",
    [stream],
  );
  return rows.map((r) => r.seq);
}

/**
 * Within a stream, time and id rise with seq (time never falls, id always rises): the ledger's
 * order by (at, id) and the stream's by seq agree, which its task filter rests on.
 */
async function expectTimeAndIdsRiseWithSeq(stream: string): Promise<void> {
  const { rows } = await t.pool.query<{ seq: number; at: Date; id: number }>(
    "select seq::int, at, id::int from ledger_entries where stream = $1 order by seq",
    [stream],
  );
  expect(rows.length).toBeGreaterThan(1);
  const bySeq = rows.map((r) => r.seq);
  const byTime = rows.toSorted((a, b) => a.at.getTime() - b.at.getTime() || a.id - b.id);
  expect(byTime.map((r) => r.seq)).toEqual(bySeq);
}

async function firstAppend(stream: string): Promise<HeadRef> {
  const ref: HeadRef = { stream };
  noteAppended(ref, await withTransaction(t.pool, (c) => appendLedger(c, stream, entry(0))));
  return ref;
}

describe("appendOnKnownHead", () => {
  it("writes the change and its entries in one statement on the head it knows", async () => {
    const ref = await firstAppend("test:kh-plain");
    for (let n = 1; n <= 3; n++) {
      const { row, appended } = await appendOnKnownHead<{ marked: number }>(
        t.pool,
        ref,
        [entry(n)],
        mark(ref.stream, n),
      );
      expect(row.marked).toBe(1);
      expect(appended).toBe(true);
    }
    expect(ref.current?.seq).toBe(4);
    expect(await seqs(ref.stream)).toEqual([1, 2, 3, 4]);
    expect(await marks(ref.stream)).toEqual([1, 2, 3]);
    expect((await verifyLedger(t.pool)).problems).toEqual([]);
  });

  it("writes no entry and leaves the head when its condition is false", async () => {
    const ref = await firstAppend("test:kh-when");
    const before = ref.current;
    const { appended } = await appendOnKnownHead(t.pool, ref, [entry(1)], {
      ...mark(ref.stream, 1, "false"),
    });
    expect(appended).toBe(false);
    expect(ref.current).toEqual(before);
    expect(await seqs(ref.stream)).toEqual([1]);
  });

  it("after another writer appended, rolls the change back and redoes it on the new head", async () => {
    const ref = await firstAppend("test:kh-behind");
    // Somebody else (a reviewer's command, the reaper) appends through the locked path.
    await withTransaction(t.pool, (c) => appendLedger(c, ref.stream, [entry(90), entry(91)]));
    const { appended } = await appendOnKnownHead(t.pool, ref, [entry(1)], mark(ref.stream, 1));
    expect(appended).toBe(true);
    expect(ref.current?.seq).toBe(4);
    // The change happened once, not once per try.
    expect(await marks(ref.stream)).toEqual([1]);
    expect(await seqs(ref.stream)).toEqual([1, 2, 3, 4]);
    expect((await verifyLedger(t.pool)).problems).toEqual([]);
  });

  it("a head it believes is further than the stream is refused, never a gap or a fork", async () => {
    const ref = await firstAppend("test:kh-ahead");
    const real = ref.current;
    if (!real) throw new Error("no head");
    // As if it had noted an append whose transaction then rolled back.
    ref.current = { ...real, seq: real.seq + 1, hash: "f".repeat(64) };
    const { appended } = await appendOnKnownHead(t.pool, ref, [entry(1)], mark(ref.stream, 1));
    expect(appended).toBe(true);
    expect(await seqs(ref.stream)).toEqual([1, 2]);
    expect(await marks(ref.stream)).toEqual([1]);
    expect((await verifyLedger(t.pool)).problems).toEqual([]);
  });

  it("with no head known, reads it; an unknown stream is an error and writes nothing", async () => {
    const ref = await firstAppend("test:kh-read");
    ref.current = undefined;
    await appendOnKnownHead(t.pool, ref, [entry(1), entry(2)], mark(ref.stream, 1));
    expect(await seqs(ref.stream)).toEqual([1, 2, 3]);
    await expect(
      appendOnKnownHead(t.pool, { stream: "test:kh-none" }, [entry(1)], mark("test:kh-none", 1)),
    ).rejects.toThrow(/does not exist/);
    expect(await marks("test:kh-none")).toEqual([]);
  });

  it("40 known-head and 40 locked appenders on one stream make one unbroken chain", async () => {
    const ref = await firstAppend("test:kh-race");
    const fast = Array.from({ length: 40 }, async (_, i) => {
      // Each writer knows the head as of the start, as a worker would.
      const own: HeadRef = { stream: ref.stream, current: ref.current };
      await appendOnKnownHead(t.pool, own, [entry(100 + i)], mark(ref.stream, 100 + i));
    });
    const locked = Array.from({ length: 40 }, (_, i) =>
      withTransaction(t.pool, (c) => appendLedger(c, ref.stream, entry(200 + i))),
    );
    await Promise.all([...fast, ...locked]);
    expect(await seqs(ref.stream)).toEqual(Array.from({ length: 81 }, (_, i) => i + 1));
    expect(await marks(ref.stream)).toEqual(Array.from({ length: 40 }, (_, i) => 100 + i));
    expect((await verifyLedger(t.pool)).problems).toEqual([]);
    await expectTimeAndIdsRiseWithSeq(ref.stream);
  });

  it("dates an entry no earlier than its stream's last, whichever way each was appended", async () => {
    const ref = await firstAppend("test:kh-clock");
    // The last entry dated an hour ahead of the database clock (a worker's reckoning of it
    // runs ahead by up to a round trip; an hour makes it certain).
    const ahead = new Date(Date.now() + 3_600_000);
    // Past the guard that lets a head only advance (triggers off, as a superuser).
    await withTransaction(t.superPool, async (c) => {
      await c.query("set local session_replication_role = replica");
      await c.query("update ledger_streams set updated_at = $2 where stream = $1", [
        ref.stream,
        ahead,
      ]);
    });
    const [locked] = await withTransaction(t.pool, (c) => appendLedger(c, ref.stream, entry(1)));
    expect(locked?.at.getTime()).toBeGreaterThanOrEqual(ahead.getTime());
    // A batch against the known head: each entry's id follows the one before it.
    await appendOnKnownHead(
      t.pool,
      ref,
      [entry(2), entry(3), entry(4), entry(5)],
      mark(ref.stream, 2),
    );
    await expectTimeAndIdsRiseWithSeq(ref.stream);
  });
});
