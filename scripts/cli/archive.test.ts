// agent-ledger archive and verify --archive as an operator runs them: real processes against a
// real database, judged by exit code and output.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { withTransaction } from "../../db/client";
import { setUpTestDatabase } from "../../db/testing/database";
import { ARCHIVE_FILES } from "../../lib/domain/archive";
import { appendLedger, taskStream } from "../../lib/server/ledger/append-ledger";
import { generateSigningKey } from "../../lib/server/ledger/signing";
import { cliOn, SLOW } from "./testing";

const t = await setUpTestDatabase("cli-archive");
const keys = generateSigningKey();
const root = mkdtempSync(path.join(tmpdir(), "agent-ledger-cli-archive-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const cli = cliOn(t);
const signing = { env: { LEDGER_SIGNING_KEY: keys.privateKey } };
const dir = path.join(root, "a");

async function closedTask(changedAt: string): Promise<string> {
  const { rows } = await t.pool.query<{ id: string }>(
    `insert into tasks (agent, input, status, status_changed_at, created_by)
     values ('cli-archive', '{}', 'succeeded', $1, 'test') returning id`,
    [changedAt],
  );
  const id = rows[0]?.id as string;
  await withTransaction(t.pool, (c) =>
    appendLedger(c, taskStream(id), [
      { kind: "step.completed", actor: "worker:1", taskId: id, data: { n: 1 } },
      { kind: "task.succeeded", actor: "worker:1", taskId: id, data: {} },
    ]),
  );
  return id;
}

describe("agent-ledger archive and verify --archive", () => {
  it(
    "usage errors and a missing key exit 2",
    () => {
      const noDate = cli(["archive", "--to", dir]);
      expect(noDate.code).toBe(2);
      expect(noDate.stderr).toContain("--before: is required");
      const badDate = cli(["archive", "--before", "last week", "--to", dir]);
      expect(badDate.code).toBe(2);
      expect(badDate.stderr).toContain("--before: must be an ISO 8601");
      const noKey = cli(["archive", "--before", "2026-01-01", "--to", dir]);
      expect(noKey.code, noKey.stderr).toBe(2);
      expect(noKey.stderr).toContain("LEDGER_SIGNING_KEY");
    },
    SLOW.timeout,
  );

  it(
    "nothing to archive: exit 0, no files",
    async () => {
      await closedTask("2025-12-01T00:00:00Z");
      await closedTask("2025-12-02T00:00:00Z");
      const r = cli(["archive", "--before", "2025-01-01", "--to", dir], signing);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain("Nothing to archive");
      expect(() => readdirSync(dir)).toThrow(/ENOENT/);
    },
    SLOW.timeout,
  );

  it(
    "--dry-run counts and writes nothing; then it archives, and verify --archive passes",
    () => {
      const dry = cli(["archive", "--before", "2026-01-01", "--to", dir, "--dry-run"]);
      expect(dry.code, dry.stderr).toBe(0);
      expect(dry.stdout).toContain("Dry run: 2 streams (4 entries)");
      expect(() => readdirSync(dir)).toThrow(/ENOENT/);

      const r = cli(["archive", "--before", "2026-01-01", "--to", dir, "--json"], signing);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ outcome: "archived", streams: 2, entries: 4 });

      const v = cli(["verify", "--archive", dir], { env: { LEDGER_PUBLIC_KEY: keys.publicKey } });
      expect(v.code, v.stdout + v.stderr).toBe(0);
      expect(v.stdout).toMatch(
        /OK: archive .* 4 entries in 2 streams verify \(joined to the ledger; signature valid with the configured key\)/,
      );
      // The ledger itself still verifies with the archived streams in it.
      const whole = cli(["verify"]);
      expect(whole.code, whole.stdout).toBe(0);
    },
    SLOW.timeout,
  );

  it(
    "verify --archive exits 1 naming the first problem of a tampered archive",
    () => {
      const where = path.join(dir, ARCHIVE_FILES.statement);
      const file = JSON.parse(readFileSync(where, "utf8"));
      file.statement.entries = 3;
      writeFileSync(where, JSON.stringify(file));
      const v = cli(["verify", "--archive", dir, "--json"], { env: { DATABASE_URL: "" } });
      expect(v.code, v.stdout + v.stderr).toBe(1);
      const report = JSON.parse(v.stdout);
      expect(report).toMatchObject({ ok: false, joined: false });
      expect(report.problems[0]).toMatchObject({ kind: "bad_signature" });
      expect(report.problems.map((p: { kind: string }) => p.kind)).toContain("count_mismatch");
    },
    SLOW.timeout,
  );
});
