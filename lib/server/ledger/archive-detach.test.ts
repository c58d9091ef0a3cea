// Archive phase 2 against a real database: a month's partition goes only once every stream
// opened in it is archived, and only when the month is past; the removal is a ledger.detached
// system entry; afterwards the ledger and both archives still verify (the archived streams'
// heads stay), appends go on, and entries removed behind the ledger's back are still found.
import { createPublicKey } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { setUpTestDatabase } from "../../../db/testing/database";
import { DETACHED_KIND } from "../../domain/archive";
import { writeCheckpoint } from "../commands/write-checkpoint";
import { SYSTEM_STREAM, taskStream } from "./append-ledger";
import { archiveLedger } from "./archive";
import { taskOpenedAt } from "./archive-testing";
import { verifyArchive } from "./archive-verify";
import { generateSigningKey, parsePrivateKey } from "./signing";
import { verifyLedger } from "./verify-ledger";

const t = await setUpTestDatabase("archive_detach");
const key = parsePrivateKey(generateSigningKey().privateKey);
const publicKey = createPublicKey(key);
const root = mkdtempSync(path.join(tmpdir(), "agent-ledger-detach-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

// The month the tasks here were opened in: long past, so it may be detached once archived.
const MONTH = "2025-11";
const OLD = "2025-12-01T00:00:00Z";
const BEFORE = new Date("2026-01-01T00:00:00Z");
await t.pool.query("select ledger_ensure_partitions($1::date, $1::date)", [`${MONTH}-01`]);

/** A task whose stream was opened in MONTH, with `n` entries; `running` or closed on OLD. */
const task = (status: "running" | "succeeded", n: number) =>
  taskOpenedAt(t.pool, `${MONTH}-10T12:00:00Z`, n, {
    running: status === "running",
    closedAt: OLD,
  });

const archive = (name: string, opts: { keepEntries?: boolean } = {}) =>
  archiveLedger(t.pool, {
    before: BEFORE,
    dir: path.join(root, name),
    actor: "test",
    signingKey: key,
    ...opts,
  });

const entriesOf = async (ids: string[]) =>
  (
    await t.pool.query<{ n: number }>(
      "select count(*)::int as n from ledger_entries where stream = any($1::text[])",
      [ids.map(taskStream)],
    )
  ).rows[0]?.n;

describe("archive: detaching archived months", () => {
  const closed: string[] = [];
  let open = "";

  it("keeps a month while one of its streams is open, or when told to keep the entries", async () => {
    for (let i = 0; i < 3; i++) closed.push(await task("succeeded", 2));
    open = await task("running", 1);
    const { rows: parts } = await t.superPool.query<{ n: number }>(
      "select count(*)::int as n from ledger_entries_y2025m11",
    );
    expect(parts[0]?.n).toBe(7);
    // A checkpoint that names these streams' heads, in chunks of two: checked after the detach.
    await writeCheckpoint(t.pool, { actor: "test", signingKey: key, chunkSize: 2 });
    const first = await archive("first");
    expect(first.outcome).toBe("archived");
    if (first.outcome !== "archived") return;
    expect(first.streams).toBe(3);
    expect(first.detached).toEqual([]);
    expect(first.detachError).toBeUndefined();
    expect(await entriesOf(closed)).toBe(6);

    // The open task closes and is archived in turn, the entries kept.
    await t.pool.query(
      "update tasks set status = 'succeeded', status_changed_at = $2, lease_owner = null, lease_expires_at = null where id = $1",
      [open, OLD],
    );
    const second = await archive("second", { keepEntries: true });
    expect(second.outcome).toBe("archived");
    if (second.outcome !== "archived") return;
    expect(second.detached).toEqual([]);
    const dry = await archiveLedger(t.pool, {
      before: BEFORE,
      dir: path.join(root, "dry"),
      actor: "test",
      dryRun: true,
    });
    expect(dry.outcome === "dry_run" && dry.detachable).toEqual([
      { month: MONTH, streams: 4, entries: 7 },
    ]);
  });

  it("detaches a past month archived whole: the entries go, a ledger.detached entry says so", async () => {
    const r = await archive("third");
    expect(r.outcome).toBe("nothing");
    if (r.outcome !== "nothing") return;
    expect(r.detachError).toBeUndefined();
    expect(r.detached).toHaveLength(1);
    const [m] = r.detached;
    expect(m).toMatchObject({ month: MONTH, streams: 4, entries: 7 });
    expect(m?.archives).toHaveLength(2);
    expect(await entriesOf([...closed, open])).toBe(0);
    // The heads stay: the archive is checked against them.
    const heads = await t.pool.query<{ n: number }>(
      "select count(*)::int as n from ledger_streams where stream = any($1::text[]) and archived_in is not null",
      [[...closed, open].map(taskStream)],
    );
    expect(heads.rows[0]?.n).toBe(4);
    const { rows } = await t.pool.query<{ seq: number; data: Record<string, unknown> }>(
      "select seq, data from ledger_entries where stream = $1 and kind = $2",
      [SYSTEM_STREAM, DETACHED_KIND],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]?.data).toMatchObject({ month: MONTH, streams: 4, entries: 7 });
    expect(Number(rows[0]?.seq)).toBe(m?.systemSeq);
    const archives = rows[0]?.data.archives as { archiveId: string; statementDigest: string }[];
    expect(archives.every((a) => /^[0-9a-f]{64}$/.test(a.statementDigest))).toBe(true);
  });

  it("verifies after the detach: the ledger (naming what went) and each archive, alone and joined", async () => {
    for (const from of ["start", "checkpoint", "start", "checkpoint"] as const) {
      const report = await verifyLedger(t.pool, { publicKey, from });
      expect(report.problems).toEqual([]);
      expect(report.ok).toBe(true);
      expect(report.mode).toBe(from === "start" ? "full" : "checkpoint");
      expect(report.warnings.join(" ")).toContain(`4 archived streams of ${MONTH} were detached`);
      // The second round from a checkpoint written after the detach (it names the heads left).
      await writeCheckpoint(t.pool, { actor: "test", signingKey: key, chunkSize: 2 });
    }
    for (const name of ["first", "second"]) {
      const dir = path.join(root, name);
      expect((await verifyArchive(dir, { publicKey })).problems).toEqual([]);
      expect((await verifyArchive(dir, { publicKey, pool: t.pool })).problems).toEqual([]);
    }
  });

  it("finds streams marked archived outside an archive (which would let their month go)", async () => {
    const stray = await task("succeeded", 1);
    const { rows } = await t.pool.query<{ id: string }>(
      "select archived_in::text as id from ledger_streams where stream = $1",
      [taskStream(closed[0] ?? "")],
    );
    const archiveId = rows[0]?.id ?? "";
    for (const [id, expected] of [
      [archiveId, /marked archived in archive .*, whose ledger.archived entry records 3/],
      ["00000000-0000-4000-8000-000000000000", /which no ledger.archived entry records/],
    ] as const) {
      await t.asSuperuserRolledBack(async (c) => {
        await c.query(
          "update ledger_streams set archived_in = $2, archived_at = now() where stream = $1",
          [taskStream(stray), id],
        );
        const report = await verifyLedger(c);
        expect(report.problems.map((p) => p.problem)).toEqual(["unrecorded_archive"]);
        expect(report.problems[0]?.message).toMatch(expected);
      });
    }
    expect((await verifyLedger(t.pool)).ok).toBe(true);
  });

  it("goes on appending, and still finds entries removed without a detach", async () => {
    const later = { id: await task("succeeded", 2) };
    expect(await entriesOf([later.id])).toBe(2);
    expect((await verifyLedger(t.pool)).ok).toBe(true);
    // Removed behind the ledger's back (the superuser, triggers off): not archived, so missing.
    const su = await t.superPool.connect();
    try {
      await su.query("set session_replication_role = replica");
      await su.query("delete from ledger_entries where stream = $1", [taskStream(later.id)]);
    } finally {
      await su.query("reset session_replication_role");
      su.release();
    }
    const report = await verifyLedger(t.pool);
    expect(report.ok).toBe(false);
    expect(report.problems.map((p) => [p.stream, p.problem])).toEqual([
      [taskStream(later.id), "missing_stream"],
    ]);
  });
});
