// Removing evidence, as an insider with superuser rights would (triggers bypassed with
// session_replication_role): each act must fail verify with a message that says what happened.
// Each case runs in a transaction that is rolled back, so cases do not see each other's damage.
import type pg from "pg";
import { describe, expect, it } from "vitest";
import { setUpTestDatabase } from "../../../db/testing/database";
import { operator } from "../../domain/access";
import { type CheckpointExport, headsDigest, statementText } from "../../domain/checkpoint";
import { createUser } from "../commands/users";
import { CheckpointRefused, writeCheckpointIn } from "../commands/write-checkpoint";
import { appendLedger, SYSTEM_STREAM } from "./append-ledger";
import { forgeChunk, writeV2CheckpointIn } from "./checkpoint-testing";
import { generateSigningKey, parsePrivateKey, parsePublicKey, verifyText } from "./signing";
import { rowHash, type VerifyReport, verifyLedger } from "./verify-ledger";

const t = await setUpTestDatabase("checkpoint");
const keys = generateSigningKey();
const signingKey = parsePrivateKey(keys.privateKey);
const publicKey = parsePublicKey(keys.publicKey);
const HOUR = 3_600_000;

const inRolledBackTransaction = t.asSuperuserRolledBack;

async function history(c: pg.PoolClient, stream: string, n = 3): Promise<void> {
  for (let i = 0; i < n; i++) {
    await appendLedger(c, stream, { kind: "effect.succeeded", actor: "w", data: { i } });
  }
}

const asInsider = (c: pg.PoolClient) => c.query("set local session_replication_role = replica");

/** Deletes `stream` from `fromSeq` on and moves its head back onto the entry before. */
async function cutFrom(c: pg.PoolClient, stream: string, fromSeq: number): Promise<void> {
  await c.query("delete from ledger_entries where stream = $1 and seq >= $2", [stream, fromSeq]);
  const { rows } = await c.query<{ hash: string }>(
    "select hash from ledger_entries where stream = $1 and seq = $2",
    [stream, fromSeq - 1],
  );
  await c.query("update ledger_streams set head_seq = $2, head_hash = $3 where stream = $1", [
    stream,
    fromSeq - 1,
    rows[0]?.hash ?? "0".repeat(64),
  ]);
}

async function dropStream(c: pg.PoolClient, stream: string): Promise<void> {
  await c.query("delete from ledger_entries where stream = $1", [stream]);
  await c.query("delete from ledger_streams where stream = $1", [stream]);
}

/** Rewrites every entry of `stream` with new data and recomputed hashes and head. */
async function rewrite(c: pg.PoolClient, stream: string): Promise<void> {
  const { rows } = await c.query(
    "select id, seq, at, kind, actor, task_id, key, data from ledger_entries where stream = $1 order by seq",
    [stream],
  );
  let prev = "0".repeat(64);
  for (const row of rows) {
    const data = { ...row.data, rewritten: true };
    const hash = rowHash(prev, { ...row, stream, data });
    await c.query("update ledger_entries set data = $2, hash = $3 where id = $1", [
      row.id,
      JSON.stringify(data),
      hash,
    ]);
    prev = hash;
  }
  await c.query("update ledger_streams set head_hash = $2 where stream = $1", [stream, prev]);
}

const kinds = (r: VerifyReport) => r.problems.map((p) => p.problem);
const messageOf = (r: VerifyReport, kind: string) =>
  r.problems.find((p) => p.problem === kind)?.message ?? "";

describe("checkpoints with a ledger key", () => {
  it("a fresh signed checkpoint verifies, and its statement verifies outside the database", async () => {
    await inRolledBackTransaction(async (c) => {
      await history(c, "t:a");
      const cp = await writeCheckpointIn(c, { actor: "test", signingKey });
      const report = await verifyLedger(c, { publicKey });
      expect(report.problems).toEqual([]);
      expect(report.checkpoint).toMatchObject({
        seq: cp.seq,
        format: "v3",
        signatureChecked: true,
      });
      const { statement, signature } = cp.export;
      expect(statement).toMatchObject({ seq: cp.seq, digest: cp.digest, streams: cp.streams });
      expect(verifyText(publicKey, statementText(statement), signature ?? "")).toBe(true);
      // The system stream is pinned up to the checkpoint: its heads list holds system at seq - 1.
      await writeCheckpointIn(c, { actor: "test", signingKey });
      expect((await verifyLedger(c, { publicKey })).ok).toBe(true);
    });
  });

  it("no checkpoint fails verify when a key is configured, and is only a warning without", async () => {
    await inRolledBackTransaction(async (c) => {
      await history(c, "t:a");
      const keyed = await verifyLedger(c, { publicKey });
      expect(kinds(keyed)).toEqual(["no_checkpoint"]);
      expect(messageOf(keyed, "no_checkpoint")).toMatch(/no checkpoint.*deleted.*25 h/);
      const plain = await verifyLedger(c);
      expect(plain.ok).toBe(true);
      expect(plain.warnings.join()).toMatch(/no checkpoint yet/);
    });
  });

  it("deleting the only checkpoint and rewinding the system head fails verify", async () => {
    await inRolledBackTransaction(async (c) => {
      await appendLedger(c, SYSTEM_STREAM, { kind: "policy.changed", actor: "admin" });
      await history(c, "t:gone");
      const cp = await writeCheckpointIn(c, { actor: "test", signingKey });
      expect((await verifyLedger(c, { publicKey })).ok).toBe(true);

      await asInsider(c);
      await dropStream(c, "t:gone");
      await cutFrom(c, SYSTEM_STREAM, cp.seq);
      // Without a key nothing is left to tell: the chains are consistent prefixes.
      expect((await verifyLedger(c)).ok).toBe(true);
      const report = await verifyLedger(c, { publicKey });
      expect(kinds(report)).toEqual(["no_checkpoint"]);
    });
  });

  it("deleting the latest of two checkpoints is caught by the copy kept outside", async () => {
    await inRolledBackTransaction(async (c) => {
      await history(c, "t:old");
      await writeCheckpointIn(c, { actor: "test", signingKey });
      await history(c, "t:new");
      const latest = await writeCheckpointIn(c, { actor: "test", signingKey });

      await asInsider(c);
      await dropStream(c, "t:new");
      await cutFrom(c, SYSTEM_STREAM, latest.seq);
      // The earlier checkpoint is still signed and recent, so the database alone cannot tell.
      expect((await verifyLedger(c, { publicKey })).ok).toBe(true);

      const { statement, signature } = latest.export;
      const report = await verifyLedger(c, {
        publicKey,
        expect: { digest: statement.digest, statement, signature },
      });
      expect(kinds(report)).toEqual(["expected_checkpoint_missing"]);
      expect(messageOf(report, "expected_checkpoint_missing")).toMatch(
        new RegExp(`system seq ${latest.seq}.*gone.*ends at seq ${latest.seq - 1}.*backwards`),
      );
      expect(report.expected).toMatchObject({ found: false });
    });
  });

  it("deleting the whole system stream fails verify, with a key and without", async () => {
    const created = await createUser(t.pool, operator("test"), {
      email: "kept@example.com",
      role: "admin",
      password: "a long enough password 1",
    });
    expect(created.ok).toBe(true);
    await inRolledBackTransaction(async (c) => {
      await history(c, "t:a");
      await writeCheckpointIn(c, { actor: "test", signingKey });
      expect((await verifyLedger(c, { publicKey })).ok).toBe(true);

      await asInsider(c);
      await dropStream(c, SYSTEM_STREAM);
      const keyed = await verifyLedger(c, { publicKey });
      expect(kinds(keyed)).toContain("no_checkpoint");
      // The user's creation was recorded there, so even without a key the loss shows.
      const plain = await verifyLedger(c);
      expect(kinds(plain)).toEqual(["missing_stream"]);
      expect(messageOf(plain, "missing_stream")).toMatch(
        /system stream is gone: 1 user\(s\) or API token\(s\).*kept@example\.com/,
      );
    });
  });

  it("altering a checkpoint's seq or time breaks its signature", async () => {
    for (const change of [{ at: new Date(Date.now() + HOUR).toISOString() }, { seq: 1 }] as const) {
      await inRolledBackTransaction(async (c) => {
        await history(c, "t:a");
        await writeCheckpointIn(c, { actor: "test", signingKey });
        const cp = await writeCheckpointIn(c, { actor: "test", signingKey });
        await asInsider(c);
        const { rows } = await c.query(
          "select id, data from ledger_entries where stream = $1 and seq = $2",
          [SYSTEM_STREAM, cp.seq],
        );
        const data = { ...rows[0].data, statement: { ...rows[0].data.statement, ...change } };
        await c.query("update ledger_entries set data = $2 where id = $1", [
          rows[0].id,
          JSON.stringify(data),
        ]);
        const report = await verifyLedger(c, { publicKey });
        expect(kinds(report), JSON.stringify(change)).toContain("bad_signature");
      });
    }
  });

  it("a signed checkpoint copied to the end of the system stream is refused as moved", async () => {
    await inRolledBackTransaction(async (c) => {
      await history(c, "t:a");
      const cp = await writeCheckpointIn(c, { actor: "test", signingKey });
      const { rows } = await c.query(
        "select data from ledger_entries where stream = $1 and seq = $2",
        [SYSTEM_STREAM, cp.seq],
      );
      // INSERT is all an appender needs; no superuser rights.
      await appendLedger(c, SYSTEM_STREAM, { kind: "policy.changed", actor: "admin" });
      await appendLedger(c, SYSTEM_STREAM, {
        kind: "ledger.checkpoint",
        actor: "test",
        data: rows[0].data,
      });
      const report = await verifyLedger(c, { publicKey });
      expect(kinds(report)).toEqual(["bad_checkpoint"]);
      expect(messageOf(report, "bad_checkpoint")).toMatch(
        new RegExp(`written for system seq ${cp.seq}: it was moved`),
      );
    });
  });

  it("a checkpoint older than the configured age fails verify", async () => {
    await inRolledBackTransaction(async (c) => {
      await history(c, "t:a");
      await writeCheckpointIn(c, { actor: "test", signingKey });
      const later = new Date(Date.now() + 26 * HOUR);
      const stale = await verifyLedger(c, { publicKey, now: later });
      expect(kinds(stale)).toEqual(["stale_checkpoint"]);
      expect(messageOf(stale, "stale_checkpoint")).toMatch(/2[56]\.\d h ago.*no older than 25 h/);
      expect((await verifyLedger(c, { publicKey, now: later, maxCheckpointAgeHours: 48 })).ok).toBe(
        true,
      );
      // Without a key an unsigned checkpoint proves nothing about time, so age is not judged.
      expect((await verifyLedger(c, { now: later })).ok).toBe(true);
    });
  });

  it("an unsigned checkpoint or one signed with another key fails when a key is configured", async () => {
    const other = parsePrivateKey(generateSigningKey().privateKey);
    for (const [key, kind] of [
      [undefined, "unsigned_checkpoint"],
      [other, "bad_signature"],
    ] as const) {
      await inRolledBackTransaction(async (c) => {
        await history(c, "t:a");
        await writeCheckpointIn(c, { actor: "test", signingKey: key });
        const report = await verifyLedger(c, { publicKey });
        expect(kinds(report)).toEqual([kind]);
      });
    }
  });

  it("a stream cut shorter than a checkpoint recorded fails verify", async () => {
    await inRolledBackTransaction(async (c) => {
      await history(c, "t:short", 4);
      await writeCheckpointIn(c, { actor: "test", signingKey });
      await asInsider(c);
      await cutFrom(c, "t:short", 3);
      const report = await verifyLedger(c, { publicKey });
      expect(report.problems).toEqual([
        expect.objectContaining({ stream: "t:short", seq: 4, problem: "missing_entries" }),
      ]);
      expect(report.problems[0]?.message).toMatch(/recorded t:short at seq 4.*ends at seq 2/);
    });
  });

  it("a legacy checkpoint (signed over its digest only) is checked, but cannot prove it is recent", async () => {
    await inRolledBackTransaction(async (c) => {
      await history(c, "t:legacy");
      const { rows } = await c.query<{ stream: string; head_seq: number; head_hash: string }>(
        "select stream, head_seq, head_hash from ledger_streams where head_seq > 0",
      );
      const streams = rows.map((r) => ({
        stream: r.stream,
        seq: Number(r.head_seq),
        hash: r.head_hash,
      }));
      const digest = headsDigest(streams);
      const { signText, rawPublicKey } = await import("./signing");
      await appendLedger(c, SYSTEM_STREAM, {
        kind: "ledger.checkpoint",
        actor: "old",
        data: {
          streams,
          digest,
          algorithm: "ed25519",
          publicKey: rawPublicKey(signingKey),
          signature: signText(signingKey, digest),
        },
      });
      const keyed = await verifyLedger(c, { publicKey });
      expect(kinds(keyed)).toEqual(["legacy_checkpoint"]);
      expect(keyed.checkpoint).toMatchObject({ format: "legacy", signatureChecked: true });
      const plain = await verifyLedger(c);
      expect(plain.ok).toBe(true);
      expect(plain.warnings.join()).toMatch(/legacy format/);
      // Its heads still count: the stream it recorded cannot vanish.
      await asInsider(c);
      await dropStream(c, "t:legacy");
      expect(kinds(await verifyLedger(c))).toEqual(["missing_stream"]);
    });
  });
});

describe("a checkpoint written the old way (v2: every head in one entry)", () => {
  it("still verifies, by itself, from it, and by its exported statement", async () => {
    await inRolledBackTransaction(async (c) => {
      await history(c, "t:old");
      await history(c, "t:gone");
      const old = await writeV2CheckpointIn(c, signingKey);
      await history(c, "t:old", 2);
      const full = await verifyLedger(c, { publicKey });
      expect(full.problems).toEqual([]);
      expect(full.checkpoint).toMatchObject({ format: "v2", signatureChecked: true, streams: 3 });
      const inc = await verifyLedger(c, { publicKey, from: "checkpoint" });
      expect(inc).toMatchObject({ ok: true, mode: "checkpoint" });
      const expected = { digest: old.statement.digest, ...old };
      expect((await verifyLedger(c, { publicKey, expect: expected })).expected).toMatchObject({
        found: true,
      });
      // A chunked checkpoint may follow it: the writer checks the old one first.
      const next = await writeCheckpointIn(c, {
        actor: "test",
        signingKey,
        previous: old.statement,
      });
      expect(next.chunks).toBe(1);
      const after = await verifyLedger(c, { publicKey, expect: expected });
      expect(after.problems).toEqual([]);
    });
  });

  it("still catches a stream deleted whole, in either pass, and refuses the next checkpoint", async () => {
    await inRolledBackTransaction(async (c) => {
      await history(c, "t:old");
      await history(c, "t:gone");
      await writeV2CheckpointIn(c, signingKey);
      await asInsider(c);
      await dropStream(c, "t:gone");
      for (const from of ["start", "checkpoint"] as const) {
        const report = await verifyLedger(c, { publicKey, from });
        expect(report.problems).toEqual([
          expect.objectContaining({ stream: "t:gone", seq: 3, problem: "missing_stream" }),
        ]);
      }
      await expect(writeCheckpointIn(c, { actor: "cron", signingKey })).rejects.toThrow(
        /recorded t:gone at seq 3/,
      );
    });
  });
});

describe("verify --expect: a checkpoint kept outside the database", () => {
  const expectOf = (e: CheckpointExport) => ({
    digest: e.statement.digest,
    statement: e.statement,
    signature: e.signature,
  });

  it("passes while the chains extend it, by statement or by digest alone", async () => {
    await inRolledBackTransaction(async (c) => {
      await history(c, "t:a");
      const cp = await writeCheckpointIn(c, { actor: "test" });
      await history(c, "t:a");
      await history(c, "t:b");
      await writeCheckpointIn(c, { actor: "test" });
      for (const expected of [expectOf(cp.export), { digest: cp.digest }]) {
        const report = await verifyLedger(c, { expect: expected });
        expect(report.problems).toEqual([]);
        expect(report.expected).toEqual({ digest: cp.digest, seq: cp.seq, found: true });
      }
    });
  });

  it("fails on a history rewritten consistently, checkpoints included", async () => {
    await inRolledBackTransaction(async (c) => {
      await history(c, "t:paid");
      const cp = await writeCheckpointIn(c, { actor: "test" });

      // The insider rewrites the stream, removes the checkpoint and writes a new one.
      await asInsider(c);
      await rewrite(c, "t:paid");
      await cutFrom(c, SYSTEM_STREAM, cp.seq - cp.chunks);
      await writeCheckpointIn(c, { actor: "insider" });
      expect((await verifyLedger(c)).ok).toBe(true);

      const byStatement = await verifyLedger(c, { expect: expectOf(cp.export) });
      expect(kinds(byStatement)).toEqual(["expected_checkpoint_missing"]);
      expect(messageOf(byStatement, "expected_checkpoint_missing")).toMatch(
        new RegExp(`system seq ${cp.seq} is now a ledger.checkpoint entry with digest .*rewritten`),
      );
      const byDigest = await verifyLedger(c, { expect: { digest: cp.digest } });
      expect(kinds(byDigest)).toEqual(["expected_checkpoint_missing"]);
      expect(messageOf(byDigest, "expected_checkpoint_missing")).toMatch(/not in the ledger/);
    });
  });

  it("fails on a stream rewritten under a checkpoint that is still there", async () => {
    await inRolledBackTransaction(async (c) => {
      await history(c, "t:paid");
      const cp = await writeCheckpointIn(c, { actor: "test" });
      await history(c, "t:other");
      await writeCheckpointIn(c, { actor: "test" });
      await asInsider(c);
      await rewrite(c, "t:paid");
      // Rewriting the latest checkpoint's heads too hides it from a plain verify (unsigned)…
      const head = await c.query("select head_hash from ledger_streams where stream = 't:paid'");
      await forgeChunk(c, 0, (heads) =>
        heads.map((h) => (h.stream === "t:paid" ? { ...h, hash: head.rows[0].head_hash } : h)),
      );
      // …except for the system chain, which now breaks at that checkpoint: so the insider would
      // have to rechain the system stream too. The outside copy names the rewritten stream.
      const report = await verifyLedger(c, { expect: expectOf(cp.export) });
      expect(report.problems).toContainEqual(
        expect.objectContaining({ stream: "t:paid", seq: 3, problem: "checkpoint_mismatch" }),
      );
      expect(report.problems.find((p) => p.stream === "t:paid")?.message).toMatch(
        new RegExp(`the checkpoint you expect \\(system seq ${cp.seq}\\) recorded`),
      );
    });
  });
});

describe("writing a checkpoint over a damaged ledger", () => {
  it("refuses when a stream the previous checkpoint recorded is gone or rewritten", async () => {
    for (const damage of [
      (c: pg.PoolClient) => dropStream(c, "t:x"),
      (c: pg.PoolClient) => cutFrom(c, "t:x", 2),
      (c: pg.PoolClient) => rewrite(c, "t:x"),
    ]) {
      await inRolledBackTransaction(async (c) => {
        await history(c, "t:x");
        const cp = await writeCheckpointIn(c, { actor: "test", signingKey });
        await asInsider(c);
        await damage(c);
        const writing = writeCheckpointIn(c, { actor: "cron", signingKey });
        await expect(writing).rejects.toThrow(CheckpointRefused);
        await expect(writing).rejects.toThrow(
          new RegExp(`previous checkpoint \\(system seq ${cp.seq}\\) recorded t:x at seq 3`),
        );
      });
    }
  });

  it("refuses when the statement exported last is no longer in the ledger", async () => {
    await inRolledBackTransaction(async (c) => {
      await history(c, "t:x");
      await writeCheckpointIn(c, { actor: "test", signingKey });
      const last = await writeCheckpointIn(c, { actor: "test", signingKey });
      await asInsider(c);
      await cutFrom(c, SYSTEM_STREAM, last.seq);
      const previous = last.export.statement;
      await expect(writeCheckpointIn(c, { actor: "cron", signingKey, previous })).rejects.toThrow(
        /checkpoint last exported .* is no longer in the ledger/,
      );
      // The one before it is intact, so without the exported copy the writer cannot tell.
      await expect(writeCheckpointIn(c, { actor: "cron", signingKey })).resolves.toMatchObject({
        signed: true,
      });
    });
  });
});
