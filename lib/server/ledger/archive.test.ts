// agent-ledger archive, phase 1, against a real database: which streams go, what the files
// hold, the freeze (the database refuses appends), verify alone and joined, and each way of
// tampering with an archive found by verify.
import { createPublicKey } from "node:crypto";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withTransaction } from "../../../db/client";
import { setUpTestDatabase } from "../../../db/testing/database";
import {
  ARCHIVE_FILES,
  ARCHIVED_KIND,
  archiveFileSchema,
  archiveStatementText,
  STREAM_ARCHIVED_SQLSTATE,
} from "../../domain/archive";
import { appendLedger, SYSTEM_STREAM, taskStream } from "./append-ledger";
import { ArchiveRefused, archiveLedger } from "./archive";
import { ArchiveConflict } from "./archive-freeze";
import { verifyArchive } from "./archive-verify";
import { generateSigningKey, parsePrivateKey, rawPublicKey, signText } from "./signing";

const t = await setUpTestDatabase("archive");
const key = parsePrivateKey(generateSigningKey().privateKey);
const publicKey = createPublicKey(key);
const otherKey = parsePrivateKey(generateSigningKey().privateKey);
const root = mkdtempSync(path.join(tmpdir(), "agent-ledger-archive-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const dirOf = (name: string) => path.join(root, name);

const BEFORE = new Date("2026-01-01T00:00:00Z");
const OLD = "2025-12-01T00:00:00Z";

/** A task in `status` since `changedAt`, with `n` ledger entries. */
async function task(status: string, changedAt: string, n: number): Promise<string> {
  const { rows } = await t.pool.query<{ id: string }>(
    `insert into tasks (agent, input, status, status_changed_at, created_by, dead_reason,
                        lease_owner, lease_expires_at)
     values ('archive-test', '{}', $1, $2, 'test',
             case when $1 = 'dead' then 'exhausted' end,
             case when $1 = 'running' then 'w1' end,
             case when $1 = 'running' then now() + interval '1 hour' end)
     returning id`,
    [status, changedAt],
  );
  const id = rows[0]?.id as string;
  await withTransaction(t.pool, (c) =>
    appendLedger(
      c,
      taskStream(id),
      Array.from({ length: n }, (_, i) => ({
        kind: "step.completed",
        actor: "worker:1",
        taskId: id,
        data: { i, note: `entry ${i}`, amount: 12.5 },
      })),
    ),
  );
  return id;
}

const gunzipLines = (file: string) =>
  gunzipSync(readFileSync(file)).toString("utf8").split("\n").filter(Boolean);
const writeGzLines = (file: string, lines: string[]) =>
  writeFileSync(file, gzipSync(lines.map((l) => `${l}\n`).join("")));

/** A copy of the archive in `from`, to tamper with. */
function copyArchive(from: string, name: string): string {
  const to = dirOf(name);
  cpSync(from, to, { recursive: true });
  return to;
}

const ids: Record<string, string> = {};
let archived: Awaited<ReturnType<typeof archiveLedger>>;

describe("archive", () => {
  beforeAll(async () => {
    ids.succeeded = await task("succeeded", OLD, 3);
    ids.rejected = await task("rejected", OLD, 2);
    ids.cancelled = await task("cancelled", OLD, 1);
    ids.running = await task("running", OLD, 2);
    ids.dead = await task("dead", OLD, 2);
    ids.recent = await task("succeeded", "2026-02-01T00:00:00Z", 2);
    await withTransaction(t.pool, (c) =>
      appendLedger(c, SYSTEM_STREAM, { kind: "policy.changed", actor: "admin", data: {} }),
    );
  });

  it("a dry run counts what would be archived and writes nothing", async () => {
    const dir = dirOf("dry");
    const r = await archiveLedger(t.pool, { before: BEFORE, dir, actor: "test", dryRun: true });
    expect(r).toEqual({ outcome: "dry_run", streams: 3, entries: 6, detachable: [] });
    await expect(readdir(dir)).rejects.toThrow(/ENOENT/);
  });

  it("refuses without a signing key, naming LEDGER_SIGNING_KEY", async () => {
    await expect(
      archiveLedger(t.pool, { before: BEFORE, dir: dirOf("nokey"), actor: "test" }),
    ).rejects.toThrow(/LEDGER_SIGNING_KEY/);
  });

  it("refuses a directory that is not empty", async () => {
    const dir = dirOf("full");
    mkdirSync(dir);
    writeFileSync(path.join(dir, "notes.txt"), "mine");
    await expect(
      archiveLedger(t.pool, { before: BEFORE, dir, actor: "test", signingKey: key }),
    ).rejects.toThrow(ArchiveRefused);
  });

  it("nothing closed before the date: no files, no entry", async () => {
    const dir = dirOf("none");
    const r = await archiveLedger(t.pool, {
      before: new Date("2020-01-01T00:00:00Z"),
      dir,
      actor: "test",
      signingKey: key,
    });
    expect(r).toEqual({ outcome: "nothing", detached: [] });
    await expect(readdir(dir)).rejects.toThrow(/ENOENT/);
  });

  it("archives the old succeeded, rejected and cancelled tasks' streams, and nothing else", async () => {
    const dir = dirOf("main");
    archived = await archiveLedger(t.pool, {
      before: BEFORE,
      dir,
      actor: "test",
      signingKey: key,
      batch: 2,
    });
    expect(archived).toMatchObject({ outcome: "archived", streams: 3, entries: 6 });
    if (archived.outcome !== "archived") throw new Error("not archived");
    expect((await readdir(dir)).sort()).toEqual(Object.values(ARCHIVE_FILES).sort());

    const streams = [ids.succeeded, ids.rejected, ids.cancelled].map((id) => taskStream(id ?? ""));
    const heads = gunzipLines(path.join(dir, ARCHIVE_FILES.heads)).map((l) => JSON.parse(l));
    expect(heads.map((h) => h.stream)).toEqual([...streams].sort());
    const entries = gunzipLines(path.join(dir, ARCHIVE_FILES.entries)).map((l) => JSON.parse(l));
    expect(entries).toHaveLength(6);
    expect(entries[0]).toMatchObject({ seq: 1, kind: "step.completed", data: { amount: 12.5 } });
    const file = archiveFileSchema.parse(
      JSON.parse(readFileSync(path.join(dir, ARCHIVE_FILES.statement), "utf8")),
    );
    expect(file.statement).toMatchObject({ streams: 3, entries: 6, before: BEFORE.toISOString() });

    const { rows } = await t.pool.query<{ stream: string; archived_in: string | null }>(
      "select stream, archived_in from ledger_streams where stream like 'task:%'",
    );
    for (const r of rows) {
      expect(r.archived_in, r.stream).toBe(streams.includes(r.stream) ? archived.archiveId : null);
    }
    const entry = await t.pool.query<{ seq: number; data: Record<string, unknown> }>(
      "select seq, data from ledger_entries where stream = 'system' and kind = $1",
      [ARCHIVED_KIND],
    );
    expect(entry.rows).toHaveLength(1);
    expect(entry.rows[0]?.data).toMatchObject({
      archiveId: archived.archiveId,
      streams: 3,
      entries: 6,
      headsDigest: file.statement.headsDigest,
      statementDigest: archived.statementDigest,
    });
  });

  it("the database refuses an append to an archived stream, and clearing the mark", async () => {
    const append = withTransaction(t.pool, (c) =>
      appendLedger(c, taskStream(ids.succeeded ?? ""), { kind: "note.added", actor: "x" }),
    );
    await expect(append).rejects.toMatchObject({
      code: STREAM_ARCHIVED_SQLSTATE,
      message: expect.stringMatching(/is archived \(archive .+\): appends are refused/),
    });
    await expect(
      t.pool.query(
        "update ledger_streams set archived_in = null, archived_at = null where stream = $1",
        [taskStream(ids.succeeded ?? "")],
      ),
    ).rejects.toThrow(/may not be changed or cleared/);
    await expect(
      t.pool.query("update ledger_streams set archived_in = gen_random_uuid() where stream = $1", [
        taskStream(ids.succeeded ?? ""),
      ]),
    ).rejects.toThrow(/may not be changed or cleared/);
    // Archiving is the only update that leaves the head where it is.
    await expect(
      t.pool.query("update ledger_streams set updated_at = now() where stream = $1", [
        taskStream(ids.recent ?? ""),
      ]),
    ).rejects.toThrow(/may only advance/);
    // The open and the recent ones still take appends.
    await withTransaction(t.pool, (c) =>
      appendLedger(c, taskStream(ids.recent ?? ""), { kind: "note.added", actor: "x" }),
    );
  });

  it("verifies alone (configured key, embedded key) and joined to the ledger", async () => {
    const dir = dirOf("main");
    const alone = await verifyArchive(dir, { publicKey });
    expect(alone).toMatchObject({ ok: true, streams: 3, entries: 6, key: "configured" });
    const embedded = await verifyArchive(dir);
    expect(embedded).toMatchObject({ ok: true, key: "embedded" });
    expect(embedded.warnings[0]).toMatch(/LEDGER_PUBLIC_KEY/);
    const joined = await verifyArchive(dir, { publicKey, pool: t.pool });
    expect(joined).toMatchObject({ ok: true, joined: true });
  });

  it("a second run finds nothing left to archive", async () => {
    const r = await archiveLedger(t.pool, {
      before: BEFORE,
      dir: dirOf("again"),
      actor: "test",
      signingKey: key,
    });
    expect(r).toEqual({ outcome: "nothing", detached: [] });
  });
});

describe("tampering with an archive", () => {
  const main = dirOf("main");
  const kinds = async (dir: string, joined = true) =>
    (await verifyArchive(dir, { publicKey, pool: joined ? t.pool : undefined })).problems.map(
      (p) => p.kind,
    );

  it("an edited line: the file's digest and the entry's hash", async () => {
    const dir = copyArchive(main, "edited");
    const file = path.join(dir, ARCHIVE_FILES.entries);
    const lines = gunzipLines(file);
    // The second entry of a stream that has one (streams go by task id, which is random).
    const at = lines.findIndex((l) => JSON.parse(l).seq === 2 && /"amount": ?12\.5/.test(l));
    expect(at).toBeGreaterThanOrEqual(0);
    lines[at] = (lines[at] ?? "").replace(/"amount": ?12\.5/, '"amount": 1250');
    writeGzLines(file, lines);
    const report = await verifyArchive(dir, { publicKey });
    expect(report.problems[0]?.kind).toBe("file_mismatch");
    expect(report.problems).toContainEqual(
      expect.objectContaining({ kind: "hash_mismatch", seq: 2 }),
    );
    expect(await kinds(dir)).toContain("entry_mismatch");
  });

  it("a dropped stream: counts and digest alone, the missing stream joined", async () => {
    const dir = copyArchive(main, "dropped");
    const headsFile = path.join(dir, ARCHIVE_FILES.heads);
    const entriesFile = path.join(dir, ARCHIVE_FILES.entries);
    const heads = gunzipLines(headsFile);
    const gone = JSON.parse(heads[0] ?? "{}").stream as string;
    writeGzLines(headsFile, heads.slice(1));
    writeGzLines(
      entriesFile,
      gunzipLines(entriesFile).filter((l) => JSON.parse(l).stream !== gone),
    );
    const alone = await kinds(dir, false);
    expect(alone).toEqual(
      expect.arrayContaining(["file_mismatch", "count_mismatch", "digest_mismatch"]),
    );
    const joined = await verifyArchive(dir, { publicKey, pool: t.pool });
    expect(joined.problems).toContainEqual(
      expect.objectContaining({ kind: "missing_stream", stream: gone }),
    );
  });

  it("a file from another archive", async () => {
    await task("succeeded", OLD, 2);
    const other = dirOf("other");
    const r = await archiveLedger(t.pool, {
      before: BEFORE,
      dir: other,
      actor: "test",
      signingKey: key,
    });
    expect(r.outcome).toBe("archived");
    const dir = copyArchive(main, "mixed");
    cpSync(path.join(other, ARCHIVE_FILES.entries), path.join(dir, ARCHIVE_FILES.entries));
    const alone = await verifyArchive(dir, { publicKey });
    expect(alone.problems[0]?.kind).toBe("file_mismatch");
    expect(alone.problems.map((p) => p.kind)).toEqual(
      expect.arrayContaining(["missing_head", "missing_entries", "count_mismatch"]),
    );
    expect((await verifyArchive(other, { publicKey, pool: t.pool })).ok).toBe(true);
  });

  it("a forged statement: edited with the original signature, or signed by another key", async () => {
    const edited = copyArchive(main, "forged");
    const where = path.join(edited, ARCHIVE_FILES.statement);
    const file = archiveFileSchema.parse(JSON.parse(readFileSync(where, "utf8")));
    const forged = { ...file, statement: { ...file.statement, entries: 5 } };
    writeFileSync(where, JSON.stringify(forged));
    const a = await verifyArchive(edited, { publicKey, pool: t.pool });
    expect(a.problems[0]).toMatchObject({ kind: "bad_signature" });
    expect(a.problems.map((p) => p.kind)).toContain("statement_mismatch");
    // Even against the key it carries.
    expect((await verifyArchive(edited)).problems[0]?.kind).toBe("bad_signature");

    const resigned = copyArchive(main, "resigned");
    const other = {
      ...file,
      publicKey: rawPublicKey(otherKey),
      statement: { ...file.statement, keyId: "ed25519:0000000000000000" },
    };
    other.signature = signText(otherKey, archiveStatementText(other.statement));
    writeFileSync(path.join(resigned, ARCHIVE_FILES.statement), JSON.stringify(other));
    const b = await verifyArchive(resigned, { publicKey });
    expect(b.problems[0]).toMatchObject({ kind: "bad_signature" });
    expect(b.problems[0]?.message).toMatch(/another key/);
  });
});

describe("an append between the snapshot and the freeze", () => {
  it("is found at the freeze: nothing archived, no files left", async () => {
    const id = await task("succeeded", OLD, 2);
    const dir = dirOf("raced");
    const run = archiveLedger(t.pool, {
      before: BEFORE,
      dir,
      actor: "test",
      signingKey: key,
      beforeFreeze: async () => {
        await withTransaction(t.pool, (c) =>
          appendLedger(c, taskStream(id), { kind: "note.added", actor: "late" }),
        );
      },
    });
    await expect(run).rejects.toThrow(ArchiveConflict);
    await expect(run).rejects.toThrow("1 streams changed while archiving; run again");
    const { rows } = await t.pool.query<{ archived_in: string | null }>(
      "select archived_in from ledger_streams where stream = $1",
      [taskStream(id)],
    );
    expect(rows[0]?.archived_in).toBeNull();
    await expect(readdir(dir)).rejects.toThrow(/ENOENT/);
    const entries = await t.pool.query("select 1 from ledger_entries where kind = $1", [
      ARCHIVED_KIND,
    ]);
    expect(entries.rowCount).toBe(2);
  });
});
