// Chunked checkpoints (heads in ledger.checkpoint_heads entries of 3 streams here): written in
// byte order, verified by both passes, and each way an insider could damage the chunks —
// edited, deleted, reordered, swapped, a digest in the list changed, a signature from another
// checkpoint — is caught, as is a stream deleted whole. Tampering runs as a superuser with
// triggers off, in a transaction that is rolled back.
import type pg from "pg";
import { describe, expect, it } from "vitest";
import { setUpTestDatabase } from "../../../db/testing/database";
import {
  CHECKPOINT_HEADS_KIND,
  chunkDigest,
  chunksRoot,
  type StreamHead,
} from "../../domain/checkpoint";
import { CheckpointRefused, writeCheckpointIn } from "../commands/write-checkpoint";
import { appendLedger, SYSTEM_STREAM } from "./append-ledger";
import { forgeChunk, latestChunked } from "./checkpoint-testing";
import { generateSigningKey, parsePrivateKey, parsePublicKey } from "./signing";
import { type VerifyReport, verifyLedger } from "./verify-ledger";

const t = await setUpTestDatabase("verify-chunks");
const keys = generateSigningKey();
const signingKey = parsePrivateKey(keys.privateKey);
const publicKey = parsePublicKey(keys.publicKey);
const CHUNK = 3;
/** system, t:0 … t:7 and t:Z: "t:Z" sorts after "t:7" and before "t:a" in byte order. */
const STREAMS = [...Array.from({ length: 8 }, (_, i) => `t:${i}`), "t:Z"];

async function history(c: pg.PoolClient, stream: string, n: number): Promise<void> {
  await appendLedger(
    c,
    stream,
    Array.from({ length: n }, (_, i) => ({ kind: "effect.succeeded", actor: "w", data: { i } })),
  );
}

/** 10 streams, a signed checkpoint of 4 chunks (system seq 2–5, itself at 6), then more. */
async function stage(c: pg.PoolClient) {
  await appendLedger(c, SYSTEM_STREAM, { kind: "policy.changed", actor: "admin" });
  for (const s of STREAMS) await history(c, s, 2);
  const cp = await writeCheckpointIn(c, { actor: "test", signingKey, chunkSize: CHUNK });
  await history(c, "t:1", 1);
  await history(c, "t:new", 2);
  return cp;
}

const asInsider = (c: pg.PoolClient) => c.query("set local session_replication_role = replica");

async function chunkEntry(c: pg.PoolClient, index: number) {
  const cp = await latestChunked(c);
  const seq = cp.data.chunks[index]?.seq;
  const { rows } = await c.query(
    "select id, data from ledger_entries where stream = $1 and seq = $2",
    [SYSTEM_STREAM, seq],
  );
  return { id: Number(rows[0].id), data: rows[0].data, seq: Number(seq) };
}

async function setData(c: pg.PoolClient, id: number, data: unknown): Promise<void> {
  await c.query("update ledger_entries set data = $2 where id = $1", [id, JSON.stringify(data)]);
}

const kinds = (r: VerifyReport) => r.problems.map((p) => [p.stream, p.problem]);
const messages = (r: VerifyReport) => r.problems.map((p) => p.message).join("\n");

describe("chunked checkpoints", () => {
  it("holds every head in chunks of the given size, in byte order, and verifies in both passes", async () => {
    await t.asSuperuserRolledBack(async (c) => {
      const cp = await stage(c);
      expect(cp).toMatchObject({ seq: 6, streams: 10, chunks: 4, signed: true });
      expect(cp.export.statement.type).toBe("agent-ledger.checkpoint.v3");
      const { rows } = await c.query(
        "select seq, data from ledger_entries where kind = $1 order by seq",
        [CHECKPOINT_HEADS_KIND],
      );
      expect(rows.map((r) => [Number(r.seq), r.data.first, r.data.last, r.data.count])).toEqual([
        [2, "system", "t:1", 3],
        [3, "t:2", "t:4", 3],
        [4, "t:5", "t:7", 3],
        [5, "t:Z", "t:Z", 1],
      ]);
      // The system stream is recorded as it was just before the first chunk.
      expect(rows[0].data.heads[0]).toMatchObject({ stream: SYSTEM_STREAM, seq: 1 });
      const cpData = (await latestChunked(c)).data;
      expect(cpData.digest).toBe(chunksRoot(cpData.chunks));

      const full = await verifyLedger(c, { publicKey });
      expect(full.problems).toEqual([]);
      expect(full.checkpoint).toMatchObject({ format: "v3", streams: 10, signatureChecked: true });
      const inc = await verifyLedger(c, { publicKey, from: "checkpoint" });
      expect(inc.problems).toEqual([]);
      // Heads: system (from seq 1: 6 entries), 9 streams' heads, t:1's new one, t:new's two.
      expect(inc).toMatchObject({ mode: "checkpoint", entries: 6 + 9 + 1 + 2, streams: 11 });

      // The next checkpoint checks this one chunk by chunk, and verifies too.
      const next = await writeCheckpointIn(c, { actor: "test", signingKey, chunkSize: CHUNK });
      expect(next).toMatchObject({ streams: 11, chunks: 4 });
      const expected = {
        digest: cp.digest,
        statement: cp.export.statement,
        signature: cp.export.signature,
      };
      for (const from of ["start", "checkpoint"] as const) {
        const report = await verifyLedger(c, { publicKey, from, expect: expected });
        expect(report.problems).toEqual([]);
        expect(report.expected).toMatchObject({ found: true, seq: cp.seq });
      }
    });
  });

  const swapFirstTwo = (heads: StreamHead[]) =>
    [heads[1], heads[0], ...heads.slice(2)] as StreamHead[];

  const damage: [string, (c: pg.PoolClient) => Promise<void>, RegExp][] = [
    [
      "a head in a chunk edited, its digest left",
      async (c) => {
        const e = await chunkEntry(c, 1);
        e.data.heads[0].hash = "f".repeat(64);
        await setData(c, e.id, e.data);
      },
      /heads chunk 1 \(system seq 3\): its heads do not match its digest/,
    ],
    [
      "a head in a chunk edited, its digest recomputed",
      async (c) => {
        const e = await chunkEntry(c, 1);
        e.data.heads[0].seq = 1;
        e.data.digest = chunkDigest(e.data.heads);
        await setData(c, e.id, e.data);
      },
      /heads chunk 1 \(system seq 3\): its heads do not match its digest or the checkpoint's/,
    ],
    [
      "a chunk deleted",
      async (c) => {
        const e = await chunkEntry(c, 2);
        await c.query("delete from ledger_entries where id = $1", [e.id]);
      },
      /heads chunk 2 \(system seq 4\) is gone/,
    ],
    [
      "heads reordered inside a chunk, its digest recomputed",
      async (c) => {
        const e = await chunkEntry(c, 1);
        e.data.heads = swapFirstTwo(e.data.heads);
        e.data.digest = chunkDigest(e.data.heads);
        await setData(c, e.id, e.data);
      },
      /heads chunk 1 \(system seq 3\): its range does not match|out of order/,
    ],
    [
      "two chunks swapped",
      async (c) => {
        const a = await chunkEntry(c, 1);
        const b = await chunkEntry(c, 2);
        await setData(c, a.id, b.data);
        await setData(c, b.id, a.data);
      },
      /heads chunk 1 \(system seq 3\): it says it is chunk 2/,
    ],
  ];

  it.each(damage)("%s: both passes report the chunk, and the system chain", async (_, act, why) => {
    await t.asSuperuserRolledBack(async (c) => {
      await stage(c);
      await asInsider(c);
      await act(c);
      const full = await verifyLedger(c, { publicKey });
      const inc = await verifyLedger(c, { publicKey, from: "checkpoint" });
      expect(inc.mode).toBe("checkpoint");
      for (const report of [full, inc]) {
        expect(report.ok).toBe(false);
        expect(kinds(report)).toContainEqual([SYSTEM_STREAM, "bad_checkpoint"]);
        expect(messages(report)).toMatch(why);
        // The edited or missing entry breaks the system chain as well.
        expect(
          report.problems.some((p) => p.stream === SYSTEM_STREAM && p.problem !== "bad_checkpoint"),
        ).toBe(true);
      }
      // Its streams were walked from their start instead: nothing else is reported.
      expect(inc.problems.filter((p) => p.stream !== SYSTEM_STREAM)).toEqual([]);
    });
  });

  it("a chunk of the pinned system stream damaged: the checkpoint is not trusted", async () => {
    await t.asSuperuserRolledBack(async (c) => {
      await stage(c);
      await asInsider(c);
      const e = await chunkEntry(c, 0);
      e.data.heads[0].seq = 2;
      await setData(c, e.id, e.data);
      const inc = await verifyLedger(c, { publicKey, from: "checkpoint" });
      expect(inc.mode).toBe("full");
      expect(messages(inc)).toMatch(/heads chunk 0 \(system seq 2\): its heads do not match/);
    });
  });

  it("a chunk's digest changed in the checkpoint's list, root and statement recomputed: the signature fails", async () => {
    await t.asSuperuserRolledBack(async (c) => {
      await stage(c);
      await asInsider(c);
      // The insider rewrites t:3's head in chunk 1 and everything above it, but has no key.
      await forgeChunk(c, 1, (heads) =>
        heads.map((h) => (h.stream === "t:3" ? { ...h, seq: 1 } : h)),
      );
      const inc = await verifyLedger(c, { publicKey, from: "checkpoint" });
      expect(inc.mode).toBe("full");
      expect(kinds(inc)).toContainEqual([SYSTEM_STREAM, "bad_signature"]);
      expect(messages(inc)).toMatch(/signature does not verify/);
    });
  });

  it("a signature over another root (taken from an earlier checkpoint) fails", async () => {
    await t.asSuperuserRolledBack(async (c) => {
      const first = await stage(c);
      await writeCheckpointIn(c, { actor: "test", signingKey, chunkSize: CHUNK });
      await asInsider(c);
      const latest = await latestChunked(c);
      await setData(c, latest.id, { ...latest.data, signature: first.export.signature });
      for (const from of ["start", "checkpoint"] as const) {
        const report = await verifyLedger(c, { publicKey, from });
        expect(report.mode).toBe("full");
        expect(kinds(report)).toContainEqual([SYSTEM_STREAM, "bad_signature"]);
      }
    });
  });

  it("a checkpoint's chunk list not matching its root is malformed", async () => {
    await t.asSuperuserRolledBack(async (c) => {
      await stage(c);
      await asInsider(c);
      const latest = await latestChunked(c);
      const chunks = latest.data.chunks.map((ch, i) =>
        i === 2 ? { ...ch, digest: "a".repeat(64) } : ch,
      );
      await setData(c, latest.id, { ...latest.data, chunks });
      const report = await verifyLedger(c, { publicKey, from: "checkpoint" });
      expect(report.mode).toBe("full");
      expect(messages(report)).toMatch(/its chunk list does not match its digest/);
    });
  });

  it.each([
    ["deleted whole", ["missing_stream"], /stream t:6 \(seq 2 in the latest checkpoint/],
    ["cut to one entry", ["missing_entries"], /recorded t:6 at seq 2/],
  ] as const)("a stream %s: both passes name it, alike", async (how, problem, why) => {
    await t.asSuperuserRolledBack(async (c) => {
      await stage(c);
      await asInsider(c);
      if (how === "deleted whole") {
        await c.query("delete from ledger_entries where stream = 't:6'");
        await c.query("delete from ledger_streams where stream = 't:6'");
      } else {
        await c.query("delete from ledger_entries where stream = 't:6' and seq = 2");
        await c.query(
          "update ledger_streams set head_seq = 1, head_hash = (select hash from ledger_entries where stream = 't:6' and seq = 1) where stream = 't:6'",
        );
      }
      const full = await verifyLedger(c, { publicKey });
      const inc = await verifyLedger(c, { publicKey, from: "checkpoint" });
      expect(inc.mode).toBe("checkpoint");
      expect(full.problems.map((p) => p.problem)).toEqual(problem);
      expect(full.problems[0]?.message).toMatch(why);
      const brief = (r: VerifyReport) => r.problems.map((p) => [p.stream, p.seq, p.problem]);
      expect(brief(inc)).toEqual(brief(full));
      // …and the next checkpoint refuses to sign over it.
      const writing = writeCheckpointIn(c, { actor: "cron", signingKey, chunkSize: CHUNK });
      await expect(writing).rejects.toThrow(CheckpointRefused);
      await expect(writing).rejects.toThrow(/recorded t:6 at seq 2, which is gone or rewritten/);
    });
  });

  it("refuses to write the next checkpoint over a damaged chunk", async () => {
    await t.asSuperuserRolledBack(async (c) => {
      await stage(c);
      await asInsider(c);
      const e = await chunkEntry(c, 3);
      await c.query("delete from ledger_entries where id = $1", [e.id]);
      await expect(
        writeCheckpointIn(c, { actor: "cron", signingKey, chunkSize: CHUNK }),
      ).rejects.toThrow(/is damaged: heads chunk 3 \(system seq 5\) is gone/);
    });
  });
});
