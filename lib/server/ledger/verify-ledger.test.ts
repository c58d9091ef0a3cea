// Property-based: random chains, one random act of tampering by a superuser (triggers bypassed
// with session_replication_role), and verify must name the broken entry. Each run happens in a
// transaction that is rolled back, so runs do not see each other's damage.
import fc from "fast-check";
import type pg from "pg";
import { describe, expect, it } from "vitest";
import { setUpTestDatabase } from "../../../db/testing/database";
import { GENESIS_HASH } from "../../domain/hash";
import { writeCheckpointIn } from "../commands/write-checkpoint";
import { appendLedger } from "./append-ledger";
import { forgeChunk } from "./checkpoint-testing";
import { generateSigningKey, parsePrivateKey, parsePublicKey } from "./signing";
import { rowHash, verifyLedger } from "./verify-ledger";

const t = await setUpTestDatabase("verify");

const entryArb = fc.record({
  kind: fc.constantFrom("effect.started", "effect.succeeded", "model.called", "review.approved"),
  actor: fc.constantFrom("worker:1", "reviewer@example.com", "system"),
  note: fc.string({ minLength: 1, maxLength: 20 }),
  payload: fc.jsonValue({ maxDepth: 3 }),
});
const chainsArb = fc.array(fc.array(entryArb, { minLength: 1, maxLength: 6 }), {
  minLength: 1,
  maxLength: 4,
});

type Tamper =
  | { op: "edit"; stream: number; pick: number; char: number }
  | { op: "delete"; stream: number; pick: number }
  | { op: "swap"; stream: number; a: number; b: number }
  | { op: "dropStream"; stream: number };

const tamperArb: fc.Arbitrary<Tamper> = fc.oneof(
  fc.record({ op: fc.constant("edit" as const), stream: fc.nat(), pick: fc.nat(), char: fc.nat() }),
  fc.record({ op: fc.constant("delete" as const), stream: fc.nat(), pick: fc.nat() }),
  fc.record({ op: fc.constant("swap" as const), stream: fc.nat(), a: fc.nat(), b: fc.nat() }),
  fc.record({ op: fc.constant("dropStream" as const), stream: fc.nat() }),
);

type Row = { id: number; seq: number; data: { note: string; payload: unknown } };

async function rowsOf(c: pg.PoolClient, stream: string): Promise<Row[]> {
  const { rows } = await c.query<Row>(
    "select id, seq, data from ledger_entries where stream = $1 order by seq",
    [stream],
  );
  return rows;
}

/** Applies the tampering; returns the stream and seq that verify must name. */
async function tamper(
  c: pg.PoolClient,
  streams: string[],
  t: Tamper,
): Promise<{ stream: string; seq: number }> {
  const stream = streams[t.stream % streams.length] as string;
  const rows = await rowsOf(c, stream);
  await c.query("set local session_replication_role = replica");
  switch (t.op) {
    case "edit": {
      const row = rows[t.pick % rows.length] as Row;
      const note = row.data.note;
      const i = t.char % note.length;
      const changed = note.charCodeAt(i) === 0x41 ? "B" : "A";
      const data = { ...row.data, note: note.slice(0, i) + changed + note.slice(i + 1) };
      await c.query("update ledger_entries set data = $2 where id = $1", [
        row.id,
        JSON.stringify(data),
      ]);
      return { stream, seq: row.seq };
    }
    case "delete": {
      const row = rows[t.pick % rows.length] as Row;
      await c.query("delete from ledger_entries where id = $1", [row.id]);
      return { stream, seq: row.seq };
    }
    case "swap": {
      if (rows.length < 2) {
        await c.query("delete from ledger_entries where id = $1", [rows[0]?.id]);
        return { stream, seq: 1 };
      }
      const a = t.a % rows.length;
      let b = t.b % rows.length;
      if (a === b) b = (a + 1) % rows.length;
      const [lo, hi] = [rows[Math.min(a, b)] as Row, rows[Math.max(a, b)] as Row];
      await c.query("update ledger_entries set seq = 1000000000 where id = $1", [lo.id]);
      await c.query("update ledger_entries set seq = $2 where id = $1", [hi.id, lo.seq]);
      await c.query("update ledger_entries set seq = $2 where id = $1", [lo.id, hi.seq]);
      return { stream, seq: lo.seq };
    }
    case "dropStream": {
      await c.query("delete from ledger_entries where stream = $1", [stream]);
      await c.query("delete from ledger_streams where stream = $1", [stream]);
      return { stream, seq: rows.length };
    }
  }
}

const inRolledBackTransaction = t.asSuperuserRolledBack;

type Chains = typeof chainsArb extends fc.Arbitrary<infer T> ? T : never;

async function writeChains(c: pg.PoolClient, chains: Chains): Promise<string[]> {
  const streams = chains.map((_, i) => `prop:s${i}`);
  for (const [i, chain] of chains.entries()) {
    for (const e of chain) {
      await appendLedger(c, streams[i] as string, {
        kind: e.kind,
        actor: e.actor,
        data: { note: e.note, payload: e.payload },
      });
    }
  }
  return streams;
}

describe("verifyLedger", () => {
  it("passes untouched random chains and checkpoints", async () => {
    await fc.assert(
      fc.asyncProperty(chainsArb, async (chains) => {
        await inRolledBackTransaction(async (c) => {
          await writeChains(c, chains);
          const cp = await writeCheckpointIn(c, { actor: "test" });
          const report = await verifyLedger(c);
          expect(report.problems).toEqual([]);
          expect(report.entries).toBe(chains.flat().length + cp.chunks + 1);
        });
      }),
      { numRuns: 30 },
    );
  });

  it("names the first broken entry after any single act of tampering", async () => {
    await fc.assert(
      fc.asyncProperty(chainsArb, tamperArb, async (chains, act) => {
        await inRolledBackTransaction(async (c) => {
          const streams = await writeChains(c, chains);
          await writeCheckpointIn(c, { actor: "test" });
          const expected = await tamper(c, streams, act);
          const report = await verifyLedger(c);
          expect(report.ok).toBe(false);
          const problem = report.problems.find((p) => p.stream === expected.stream);
          expect(problem, JSON.stringify(report.problems)).toBeDefined();
          expect(problem?.seq).toBe(expected.seq);
          expect(report.problems.every((p) => p.stream === expected.stream)).toBe(true);
        });
      }),
      { numRuns: 120 },
    );
  });

  it("a stream rewritten with fresh hashes passes the chain check but fails a signed checkpoint", async () => {
    const key = generateSigningKey();
    const signingKey = parsePrivateKey(key.privateKey);
    const publicKey = parsePublicKey(key.publicKey);
    await inRolledBackTransaction(async (c) => {
      const streams = await writeChains(c, [
        [
          { kind: "effect.started", actor: "system", note: "refund 100", payload: null },
          { kind: "effect.succeeded", actor: "system", note: "ok", payload: null },
        ],
      ]);
      const stream = streams[0] as string;
      await writeCheckpointIn(c, { actor: "test", signingKey });
      expect((await verifyLedger(c, { publicKey })).ok).toBe(true);

      // A superuser rewrites the first entry and recomputes the whole chain and head.
      await c.query("set local session_replication_role = replica");
      const { rows } = await c.query(
        "select id, seq, at, kind, actor, task_id, key, data from ledger_entries where stream = $1 order by seq",
        [stream],
      );
      let prev = GENESIS_HASH;
      for (const row of rows) {
        const data = row.seq === 1 ? { ...row.data, note: "refund 1" } : row.data;
        const hash = rowHash(prev, { ...row, stream, data });
        await c.query("update ledger_entries set data = $2, hash = $3 where id = $1", [
          row.id,
          JSON.stringify(data),
          hash,
        ]);
        prev = hash;
      }
      await c.query("update ledger_streams set head_hash = $2 where stream = $1", [stream, prev]);

      const report = await verifyLedger(c, { publicKey });
      expect(report.problems).toHaveLength(1);
      expect(report.problems[0]).toMatchObject({ stream, seq: 2, problem: "checkpoint_mismatch" });

      // Forging the checkpoint's list, digest and statement does not help: the signature no longer verifies.
      await forgeChunk(c, 0, (heads) =>
        heads.map((h) => (h.stream === stream ? { ...h, hash: prev } : h)),
      );
      const forgedReport = await verifyLedger(c, { publicKey });
      expect(forgedReport.problems.map((p) => p.problem)).toContain("bad_signature");
    });
  });

  it("finds a task whose whole stream is gone even without a checkpoint", async () => {
    await inRolledBackTransaction(async (c) => {
      const { rows } = await c.query(
        "insert into tasks (agent, input, created_by) values ('demo', '{}', 'test') returning id",
      );
      const report = await verifyLedger(c);
      expect(report.problems).toEqual([
        expect.objectContaining({ stream: `task:${rows[0].id}`, problem: "missing_stream" }),
      ]);
    });
  });
});
