// The CLI as scripts see it: real processes against a real database, judged by exit code
// and output.
import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { withTransaction } from "../../db/client";
import { isAlive, readPostmasterPid } from "../../db/embedded";
import { setUpTestDatabase } from "../../db/testing/database";
import { appendLedger } from "../../lib/server/ledger/append-ledger";
import { BIN, cliOn } from "./testing";

const t = await setUpTestDatabase("cli");
const cli = cliOn(t);

describe("agent-ledger CLI", () => {
  it("prints help for itself and every command", () => {
    const top = cli(["--help"]);
    expect(top.code).toBe(0);
    for (const name of ["migrate", "verify", "checkpoint", "seed", "worker"]) {
      expect(top.stdout).toContain(name);
      const r = cli([name, "--help"]);
      expect(r.code, name).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^agent-ledger ${name}`));
    }
  });

  it("exits 2 on an unknown command or option, saying what was wrong", () => {
    const unknown = cli(["frobnicate"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "frobnicate"');
    const bad = cli(["verify", "--frob"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/Unknown option '--frob'/);
  });

  it("exits 2 naming the variable when the environment is bad", () => {
    const r = cli(["verify"], { env: { DATABASE_URL: "mysql://nope" } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("DATABASE_URL: must be a postgres:// or postgresql:// URL");
  });

  it("exits 2 when the database cannot be reached", () => {
    const r = cli(["verify"], { env: { DATABASE_URL: "postgres://x:y@127.0.0.1:1/none" } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/ECONNREFUSED|connect/);
  });

  it("migrates (nothing left to apply on a migrated database)", () => {
    const r = cli(["migrate", "--json"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ applied: 0 });
  });

  it("migrates a new embedded database and counts what it applied (opening it migrates first)", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "agent-ledger-cli-migrate-"));
    chmodSync(dir, 0o755);
    try {
      const { DATABASE_URL: _a, DATABASE_OWNER_URL: _b, ...rest } = process.env;
      const r = spawnSync(process.execPath, [BIN, "migrate", "--json"], {
        encoding: "utf8",
        env: { ...rest, AGENT_LEDGER_DATA_DIR: dir },
        timeout: 120_000,
      });
      expect(r.status, r.stderr).toBe(0);
      const result = JSON.parse(r.stdout);
      expect(result.total).toBeGreaterThan(0);
      expect(result.applied).toBe(result.total);
    } finally {
      const running = readPostmasterPid(path.join(dir, "pg"));
      if (running && isAlive(running.pid)) process.kill(running.pid, "SIGKILL");
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("seeds once, checkpoints with a signature, and verifies", () => {
    const seeded = cli(["seed", "--json"]);
    expect(seeded.code, seeded.stderr).toBe(0);
    expect(JSON.parse(seeded.stdout)).toEqual({ seeded: true });
    expect(JSON.parse(cli(["seed", "--json"]).stdout)).toEqual({ seeded: false });

    const keys = JSON.parse(cli(["checkpoint", "--new-key", "--json"]).stdout);
    const cp = cli(["checkpoint", "--json", "--actor", "ci"], {
      env: { LEDGER_SIGNING_KEY: keys.privateKey },
    });
    expect(cp.code, cp.stderr).toBe(0);
    expect(JSON.parse(cp.stdout)).toMatchObject({ signed: true });

    const ok = cli(["verify", "--json"], { env: { LEDGER_PUBLIC_KEY: keys.publicKey } });
    expect(ok.code, ok.stdout).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({
      ok: true,
      checkpoint: { signatureChecked: true },
    });

    const other = JSON.parse(cli(["checkpoint", "--new-key", "--json"]).stdout);
    const wrongKey = cli(["verify"], { env: { LEDGER_PUBLIC_KEY: other.publicKey } });
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.stdout).toContain("bad_signature");
  });

  it("exits 1 naming the entry when a superuser edits one", async () => {
    const [entry] = await withTransaction(t.pool, (c) =>
      appendLedger(c, "cli:tamper", [
        { kind: "effect.started", actor: "w", data: { amount: 100 } },
        { kind: "effect.succeeded", actor: "w", data: { amount: 100 } },
      ]),
    );
    const c = await t.superPool.connect();
    try {
      await c.query("begin");
      await c.query("set local session_replication_role = replica");
      await c.query(`update ledger_entries set data = '{"amount": 101}' where id = $1`, [
        entry?.id,
      ]);
      await c.query("commit");
    } finally {
      c.release();
    }
    const r = cli(["verify"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`cli:tamper seq 1 (entry id ${entry?.id}): hash_mismatch`);
  });
});
