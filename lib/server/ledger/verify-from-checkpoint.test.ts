// verify from the latest signed checkpoint: it reads each checkpointed head and what follows,
// finds tampering after the checkpoint exactly as the full pass does, trusts what precedes the
// checkpoint to its signature, and walks everything (saying so) when the signature fails.
// Tampering is done as a superuser with triggers off, in a transaction that is rolled back.
import type pg from "pg";
import { describe, expect, it } from "vitest";
import { setUpTestDatabase } from "../../../db/testing/database";
import { writeCheckpointIn } from "../commands/write-checkpoint";
import { appendLedger, SYSTEM_STREAM } from "./append-ledger";
import { generateSigningKey, parsePrivateKey, parsePublicKey } from "./signing";
import { verifyLedger } from "./verify-ledger";

const t = await setUpTestDatabase("verify-from-checkpoint");
const keys = generateSigningKey();
const signingKey = parsePrivateKey(keys.privateKey);
const publicKey = parsePublicKey(keys.publicKey);
const other = parsePublicKey(generateSigningKey().publicKey);

async function history(c: pg.PoolClient, stream: string, n: number, from = 0): Promise<void> {
  await appendLedger(
    c,
    stream,
    Array.from({ length: n }, (_, i) => ({
      kind: "effect.succeeded",
      actor: "w",
      data: { i: from + i },
    })),
  );
}

/** Three streams of 5 and the system stream, a signed checkpoint, then 3 + 2 more and a new stream of 4. */
async function stage(c: pg.PoolClient): Promise<void> {
  await appendLedger(c, SYSTEM_STREAM, { kind: "policy.changed", actor: "admin" });
  for (const s of ["t:a", "t:b", "t:c"]) await history(c, s, 5);
  await writeCheckpointIn(c, { actor: "test", signingKey });
  await history(c, "t:a", 3, 5);
  await history(c, "t:b", 2, 5);
  await history(c, "t:new", 4);
}

const asInsider = (c: pg.PoolClient) => c.query("set local session_replication_role = replica");
const idOf = async (c: pg.PoolClient, stream: string, seq: number) =>
  (
    await c.query<{ id: number }>("select id from ledger_entries where stream = $1 and seq = $2", [
      stream,
      seq,
    ])
  ).rows[0]?.id;

describe("verify from the latest signed checkpoint", () => {
  it("reads each checkpointed head and what follows it, and nothing before", async () => {
    await t.asSuperuserRolledBack(async (c) => {
      await stage(c);
      const full = await verifyLedger(c, { publicKey });
      const inc = await verifyLedger(c, { publicKey, from: "checkpoint" });
      // The system stream: policy.changed, one heads chunk, the checkpoint.
      expect(full).toMatchObject({ ok: true, mode: "full", entries: 1 + 15 + 2 + 9 });
      expect(inc.problems).toEqual([]);
      // One head each for system, t:a, t:b, t:c; the chunk and the checkpoint; 3 + 2 + 4 new.
      expect(inc).toMatchObject({ ok: true, mode: "checkpoint", entries: 4 + 2 + 9, streams: 5 });
      expect(inc.warnings).toEqual([]);
    });
  });

  const tampering: [string, (c: pg.PoolClient) => Promise<unknown>][] = [
    [
      "an entry after the checkpoint edited",
      async (c) =>
        c.query(`update ledger_entries set data = '{"i": 99}' where id = $1`, [
          await idOf(c, "t:a", 7),
        ]),
    ],
    [
      "the checkpointed head itself edited",
      async (c) =>
        c.query(`update ledger_entries set data = '{"i": 99}' where id = $1`, [
          await idOf(c, "t:b", 5),
        ]),
    ],
    [
      "an entry after the checkpoint deleted",
      async (c) => c.query("delete from ledger_entries where id = $1", [await idOf(c, "t:a", 6)]),
    ],
    [
      "the tail after the checkpoint cut off",
      async (c) => c.query("delete from ledger_entries where stream = 't:b' and seq > 5"),
    ],
    [
      "an entry of a new stream edited",
      async (c) =>
        c.query(`update ledger_entries set actor = 'x' where id = $1`, [await idOf(c, "t:new", 1)]),
    ],
    [
      "the head row of a new stream deleted",
      (c) => c.query("delete from ledger_streams where stream = 't:new'"),
    ],
    [
      "the head row of a checkpointed stream deleted",
      (c) => c.query("delete from ledger_streams where stream = 't:a'"),
    ],
    [
      "a checkpointed stream deleted whole",
      async (c) => {
        await c.query("delete from ledger_entries where stream = 't:c'");
        await c.query("delete from ledger_streams where stream = 't:c'");
      },
    ],
    [
      "an entry appended past the head",
      (c) =>
        c.query(
          `insert into ledger_entries (stream, seq, at, kind, actor, data, hash, month)
           select stream, seq + 1, at, kind, actor, data, hash, month from ledger_entries
            where stream = 't:c' and seq = 5`,
        ),
    ],
  ];

  it.each(tampering)("%s: the same problems as the full pass", async (_, act) => {
    await t.asSuperuserRolledBack(async (c) => {
      await stage(c);
      await asInsider(c);
      await act(c);
      const full = await verifyLedger(c, { publicKey });
      const inc = await verifyLedger(c, { publicKey, from: "checkpoint" });
      expect(full.ok).toBe(false);
      expect(inc.mode).toBe("checkpoint");
      expect(inc.problems).toEqual(full.problems);
    });
  });

  it("trusts what precedes the checkpoint to its signature: an old entry edited is the full pass's to find", async () => {
    await t.asSuperuserRolledBack(async (c) => {
      await stage(c);
      await asInsider(c);
      const id = await idOf(c, "t:c", 2);
      await c.query(`update ledger_entries set data = '{"i": 99}' where id = $1`, [id]);
      expect((await verifyLedger(c, { publicKey, from: "checkpoint" })).ok).toBe(true);
      expect((await verifyLedger(c, { publicKey })).problems).toEqual([
        expect.objectContaining({ stream: "t:c", seq: 2, entryId: id, problem: "hash_mismatch" }),
      ]);
    });
  });

  it("walks every chain, with a warning, when the checkpoint's signature does not verify", async () => {
    await t.asSuperuserRolledBack(async (c) => {
      await stage(c);
      await asInsider(c);
      // A forged head for t:c, so the walk from it would skip t:c's real history.
      await c.query(
        `update ledger_entries set data = jsonb_set(data, '{signature}', to_jsonb($1::text))
          where kind = 'ledger.checkpoint'`,
        [Buffer.alloc(64).toString("base64")],
      );
      const id = await idOf(c, "t:c", 2);
      await c.query(`update ledger_entries set data = '{"i": 99}' where id = $1`, [id]);
      const inc = await verifyLedger(c, { publicKey, from: "checkpoint" });
      expect(inc.mode).toBe("full");
      expect(inc.entries).toBe(1 + 15 + 2 + 9);
      expect(inc.warnings.join()).toMatch(/no checkpoint whose signature verifies/);
      // The forged checkpoint entry no longer hashes to its stored hash either.
      expect(inc.problems.map((p) => [p.stream, p.problem])).toEqual([
        [SYSTEM_STREAM, "bad_signature"],
        [SYSTEM_STREAM, "hash_mismatch"],
        ["t:c", "hash_mismatch"],
      ]);

      // Another key, or none: the same full pass.
      const wrongKey = await verifyLedger(c, { publicKey: other, from: "checkpoint" });
      expect(wrongKey.mode).toBe("full");
      const noKey = await verifyLedger(c, { from: "checkpoint" });
      expect(noKey.mode).toBe("full");
      expect(noKey.warnings.join()).toMatch(/needs LEDGER_PUBLIC_KEY/);
    });
  });
});
