// verify and checkpoint as a cron job or an auditor runs them: real processes against a real
// database, judged by exit code and output. The cases run in order on one database; the last
// one tampers with it, as an insider with superuser rights would.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { withTransaction } from "../../db/client";
import { setUpTestDatabase } from "../../db/testing/database";
import { checkpointExportSchema } from "../../lib/domain/checkpoint";
import { appendLedger, SYSTEM_STREAM } from "../../lib/server/ledger/append-ledger";
import { generateSigningKey } from "../../lib/server/ledger/signing";
import { cliOn } from "./testing";

const t = await setUpTestDatabase("cli-checkpoint");
const keys = generateSigningKey();
const dir = mkdtempSync(path.join(tmpdir(), "agent-ledger-checkpoint-"));
const exported = path.join(dir, "checkpoint.json");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cli = cliOn(t);
const withKey = { env: { LEDGER_PUBLIC_KEY: keys.publicKey } };
const signing = { env: { LEDGER_SIGNING_KEY: keys.privateKey } };

describe("agent-ledger checkpoint and verify", () => {
  it("with a key configured and no checkpoint, verify exits 1 saying so; without a key it warns", async () => {
    await withTransaction(t.pool, (c) =>
      appendLedger(c, SYSTEM_STREAM, { kind: "policy.changed", actor: "admin", data: {} }),
    );
    const keyed = cli(["verify"], withKey);
    expect(keyed.code, keyed.stdout).toBe(1);
    expect(keyed.stdout).toMatch(/system: no_checkpoint: the ledger holds no checkpoint/);
    expect(keyed.stdout).toContain("LEDGER_CHECKPOINT_MAX_AGE_HOURS");
    const plain = cli(["verify"]);
    expect(plain.code, plain.stdout).toBe(0);
    expect(plain.stdout).toContain("warning: no checkpoint yet");
  });

  it("checkpoint --export writes the signed statement; verify accepts it, the digest, and the key", () => {
    const cp = cli(["checkpoint", "--export", exported, "--actor", "cron"], signing);
    expect(cp.code, cp.stderr).toBe(0);
    const digest = /^digest ([0-9a-f]{64})$/m.exec(cp.stdout)?.[1];
    expect(digest).toBeDefined();
    const file = checkpointExportSchema.parse(JSON.parse(readFileSync(exported, "utf8")));
    // One heads chunk at system seq 2, the checkpoint at 3.
    expect(file.statement).toMatchObject({ seq: 3, digest, streams: 1 });
    expect(file.signature).toBeDefined();
    expect(cp.stdout).toContain(`statement {"at":"${file.statement.at}",`);

    const ok = cli(["verify", "--json", "--expect", exported], withKey);
    expect(ok.code, ok.stdout).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({
      ok: true,
      checkpoint: { seq: 3, signatureChecked: true, format: "v3" },
      expected: { digest, seq: 3, found: true },
    });
    const byDigest = cli(["verify", "--expect", digest ?? ""], withKey);
    expect(byDigest.code, byDigest.stdout).toBe(0);
    expect(byDigest.stdout).toContain(`expected checkpoint ${digest}: found at system seq 3`);
  });

  it("verify --since-checkpoint reads only what follows the signed checkpoint; without a key it walks everything", async () => {
    await withTransaction(t.pool, (c) =>
      appendLedger(c, "cli:since", [
        { kind: "note.added", actor: "t", data: { n: 1 } },
        { kind: "note.added", actor: "t", data: { n: 2 } },
      ]),
    );
    const since = cli(["verify", "--since-checkpoint", "--json"], withKey);
    expect(since.code, since.stdout).toBe(0);
    // The system stream's checkpointed head (the entry before the heads chunk), the chunk, the
    // checkpoint itself, and the two entries of the new stream.
    expect(JSON.parse(since.stdout)).toMatchObject({ ok: true, mode: "checkpoint", entries: 5 });
    const text = cli(["verify", "--since-checkpoint"], withKey);
    expect(text.stdout).toContain("OK: 5 entries from the latest checkpoint on");
    const plain = cli(["verify", "--since-checkpoint"]);
    expect(plain.code, plain.stdout).toBe(0);
    expect(plain.stdout).toContain("OK: 5 entries in 2 streams verify.");
    expect(plain.stdout).toMatch(/warning: verifying from a checkpoint needs LEDGER_PUBLIC_KEY/);
  });

  it("--expect that is neither a digest nor an exported statement exits 2", () => {
    const garbage = path.join(dir, "garbage.json");
    writeFileSync(garbage, JSON.stringify({ digest: "abc" }));
    for (const [arg, said] of [
      [path.join(dir, "missing.json"), "neither a 64-hex-digit digest nor a readable file"],
      [garbage, "is not a checkpoint statement"],
    ] as const) {
      const r = cli(["verify", "--expect", arg]);
      expect(r.code, arg).toBe(2);
      expect(r.stderr).toContain(said);
    }
  });

  it("exits 2 naming LEDGER_CHECKPOINT_MAX_AGE_HOURS when it is not a positive number", () => {
    const r = cli(["verify"], { env: { LEDGER_CHECKPOINT_MAX_AGE_HOURS: "0" } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("LEDGER_CHECKPOINT_MAX_AGE_HOURS: must be more than 0 hours");
  });

  it("after the checkpoint is deleted and the system head rewound, verify and --expect exit 1", async () => {
    const c = await t.superPool.connect();
    try {
      await c.query("begin");
      await c.query("set local session_replication_role = replica");
      await c.query("delete from ledger_entries where stream = $1 and seq >= 2", [SYSTEM_STREAM]);
      await c.query(
        `update ledger_streams set head_seq = 1, head_hash =
           (select hash from ledger_entries where stream = $1 and seq = 1) where stream = $1`,
        [SYSTEM_STREAM],
      );
      await c.query("commit");
    } finally {
      c.release();
    }
    expect(cli(["verify"]).code).toBe(0);
    const keyed = cli(["verify"], withKey);
    expect(keyed.code, keyed.stdout).toBe(1);
    expect(keyed.stdout).toContain("no_checkpoint");
    const outside = cli(["verify", "--expect", exported]);
    expect(outside.code, outside.stdout).toBe(1);
    expect(outside.stdout).toMatch(
      /expected_checkpoint_missing: the checkpoint you expect \(system seq 3, .*\) is gone: the system stream now ends at seq 1, so it went backwards/,
    );

    // The next scheduled run will not sign over the loss, and keeps the statement it had.
    const before = readFileSync(exported, "utf8");
    const cron = cli(["checkpoint", "--export", exported], signing);
    expect(cron.code, cron.stderr).toBe(1);
    expect(cron.stderr).toMatch(
      /refused: the checkpoint last exported .* is no longer in the ledger/,
    );
    expect(readFileSync(exported, "utf8")).toBe(before);
  });
});
