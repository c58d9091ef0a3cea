// An archived task whose entries the database no longer holds (issue 23, the detach simulated by
// deleting its stream's entries as the superuser with triggers off): the task detail and "Why?"
// read the same entries from the archive's files under LEDGER_ARCHIVE_DIR, verified, and say so;
// an edited file, no LEDGER_ARCHIVE_DIR and a missing archive each say why they cannot.
import { createPublicKey } from "node:crypto";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { setUpTestDatabase } from "../../../db/testing/database";
import { runtimeTestKit, setGlobalPolicy } from "../../../worker/runtime/test-support";
import { testViewer } from "../../auth/testing";
import { ARCHIVE_FILES } from "../../domain/archive";
import { REDACTED } from "../../domain/redact";
import { defineAgent, defineTool } from "../../sdk/define";
import { taskStream } from "../ledger/append-ledger";
import { archiveClosedTasks } from "../ledger/archive-testing";
import { generateSigningKey, parsePrivateKey } from "../ledger/signing";
import type { ArchiveConfig } from "./archived-entries";
import { getTaskDetail } from "./get-task-detail";
import { getTaskTimeline } from "./get-task-timeline";
import { explainWhy, whyAnswerSchema, whyQuerySchema } from "./why";

const t = await setUpTestDatabase("archived_files");
const kit = runtimeTestKit(t.pool);
const ops = testViewer("ops");
const signingKey = parsePrivateKey(generateSigningKey().privateKey);
const root = mkdtempSync(path.join(tmpdir(), "agent-ledger-archive-dir-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const archives: ArchiveConfig = { dir: root, publicKey: createPublicKey(signingKey) };

const store = defineTool({
  name: "store",
  input: z.object({ id: z.string(), secret: z.string() }),
  intent: (a) => ({ id: a.id }),
  sensitive: ["secret"],
  execute: async (a) => ({ stored: a.id, secret: a.secret }),
});
const agent = defineAgent({
  name: "archived-files-agent",
  input: z.object({ id: z.string() }),
  tools: { store },
  run: async (ctx, input) => {
    await ctx.step("prepare", async () => ({ id: input.id }));
    return ctx.tool("store", { id: input.id, secret: "hunter2" });
  },
});

let taskId = "";
let archiveId = "";
let before: Awaited<ReturnType<typeof getTaskDetail>> = null;
let whyBefore: Awaited<ReturnType<typeof explainWhy>> | null = null;
let timeBefore: Awaited<ReturnType<typeof getTaskTimeline>> = null;
const now = new Date("2030-01-01T00:00:00Z");
const why = (config: ArchiveConfig) =>
  explainWhy(t.db, ops, whyQuerySchema.parse({ taskId }), config);

beforeAll(async () => {
  await setGlobalPolicy(t.pool, { maxAttempts: 3, backoffMs: 60_000, attemptTimeoutMs: 5_000 });
  taskId = await kit.enqueue(agent.name, { id: "a1" });
  expect((await kit.runOneAttempt("w1", [agent]))?.taskId).toBe(taskId);
  expect((await kit.task(taskId)).status).toBe("succeeded");
  // Archive everything closed up to now: this database holds only this task.
  const archive = await archiveClosedTasks(t.pool, new Date(Date.now() + 1000), {
    into: root,
    name: "2026-12",
    signingKey,
  });
  archiveId = archive.archiveId;
  before = await getTaskDetail(t.db, ops, taskId, {}, archives);
  whyBefore = await why(archives);
  timeBefore = await getTaskTimeline(t.db, ops, taskId, now, archives);
  // The detach phase 2 makes: the stream's entries leave the database, its head row stays.
  const c = await t.superPool.connect();
  try {
    await c.query("set session_replication_role = replica");
    const gone = await c.query("delete from ledger_entries where stream = $1", [
      taskStream(taskId),
    ]);
    expect(gone.rowCount).toBeGreaterThan(3);
  } finally {
    await c.query("reset session_replication_role");
    c.release();
  }
});

describe("an archived task whose entries left the database", () => {
  it("before the detach the entries come from the database", () => {
    expect(before?.task.archived).toMatchObject({
      archiveId,
      source: "database",
      unavailable: null,
    });
    expect(before?.timeline.total).toBeGreaterThan(3);
    expect(whyBefore?.effects[0]?.task.archived?.source).toBe("database");
  });

  it("the task detail reads the same entries from the files, verified", async () => {
    const after = await getTaskDetail(t.db, ops, taskId, {}, archives);
    expect(after?.task.archived).toEqual({
      ...before?.task.archived,
      source: "files",
      unavailable: null,
    });
    expect(after?.timeline).toEqual(before?.timeline);
    expect(after?.effects).toEqual(before?.effects);
    expect(after?.effects[0]?.result).toEqual({ stored: "a1", secret: REDACTED });
    expect(after?.steps).toEqual(before?.steps);
    expect(after?.attempts).toEqual(before?.attempts);
    expect(after?.inputHistory).toEqual(before?.inputHistory);
    expect(after?.attempts.length).toBe(1);
    expect(after?.inputHistory.enqueued).toEqual({ id: "a1" });
  });

  it("the page's time view is built from the files' entries as it was from the database's", async () => {
    const after = await getTaskTimeline(t.db, ops, taskId, now, archives);
    expect(timeBefore?.entriesRead).toBeGreaterThan(2);
    expect(after).toEqual(timeBefore);
    const none = await getTaskTimeline(t.db, ops, taskId, now, { ...archives, dir: undefined });
    expect(none?.entriesRead).toBe(0);
  });

  it("the archive's index says where the stream is; a wrong one costs a full read, not another answer", async () => {
    const file = path.join(root, "2026-12", ARCHIVE_FILES.index);
    const original = readFileSync(file, "utf8");
    expect(JSON.parse(original)).toMatchObject({
      entries: [[0, expect.any(Number), expect.any(String), expect.any(String)]],
    });
    for (const wrong of [
      original.replaceAll(/\[0,/g, "[7,"),
      "{not json",
      JSON.stringify({ ...JSON.parse(original), entries: [] }),
    ]) {
      writeFileSync(file, wrong);
      try {
        const d = await getTaskDetail(t.db, ops, taskId, {}, archives);
        expect(d?.task.archived).toMatchObject({ source: "files", unavailable: null });
        expect(d?.timeline).toEqual(before?.timeline);
      } finally {
        writeFileSync(file, original);
      }
    }
  });

  it("a window of the stream is read from the files too", async () => {
    const window = await getTaskDetail(t.db, ops, taskId, { from: 2 }, archives);
    expect(window?.timeline.entries.map((e) => e.seq)[0]).toBe(2);
    expect(window?.timeline.entries).toEqual(before?.timeline.entries.slice(1));
  });

  it("Why? reads them from the files and answers as before", async () => {
    const answer = await why(archives);
    expect(whyAnswerSchema.parse(answer)).toBeTruthy();
    const [now, then] = [answer.effects[0], whyBefore?.effects[0]];
    expect(now?.task.archived?.source).toBe("files");
    expect({ ...now, task: { ...now?.task, archived: null } }).toEqual({
      ...then,
      task: { ...then?.task, archived: null },
    });
    expect(now?.history.map((e) => e.kind)).toEqual(["effect.succeeded"]);
    expect(now?.executions).toBe(1);
    expect(now?.attempts.map((a) => a.outcome)).toEqual(["succeeded"]);
  });

  it("an edited line in the entries file: unavailable, naming the failure", async () => {
    const dir = path.join(root, "2026-12");
    const file = path.join(dir, ARCHIVE_FILES.entries);
    const original = readFileSync(file);
    const edited = gunzipSync(original).toString("utf8").replaceAll('"a1"', '"zz"');
    writeFileSync(file, gzipSync(edited));
    try {
      const d = await getTaskDetail(t.db, ops, taskId, {}, archives);
      expect(d?.task.archived).toMatchObject({ archiveId, source: null });
      expect(d?.task.archived?.unavailable?.reason).toBe("not_verified");
      expect(d?.task.archived?.unavailable?.message).toContain(
        "entries.jsonl.gz is not the file the statement signed",
      );
      expect(d?.timeline).toMatchObject({ entries: [], total: 0 });
      const w = await why(archives);
      expect(w.effects[0]?.task.archived?.unavailable?.reason).toBe("not_verified");
      expect(w.effects[0]?.history).toEqual([]);
    } finally {
      writeFileSync(file, original);
    }
  });

  it("a statement signed by another key: unavailable, not verified", async () => {
    const other = createPublicKey(parsePrivateKey(generateSigningKey().privateKey));
    const d = await getTaskDetail(t.db, ops, taskId, {}, { dir: root, publicKey: other });
    expect(d?.task.archived?.unavailable).toMatchObject({ reason: "not_verified" });
    expect(d?.task.archived?.unavailable?.message).toContain("signed by another key");
  });

  it("no LEDGER_ARCHIVE_DIR: unavailable, not configured", async () => {
    const d = await getTaskDetail(t.db, ops, taskId, {}, { ...archives, dir: undefined });
    expect(d?.task.archived).toMatchObject({
      source: null,
      unavailable: { reason: "not_configured" },
    });
    expect(d?.task.archived?.unavailable?.message).toContain(
      "LEDGER_ARCHIVE_DIR is not configured",
    );
  });

  it("the archive's directory missing: unavailable, not found", async () => {
    const elsewhere = mkdtempSync(path.join(tmpdir(), "agent-ledger-archive-empty-"));
    try {
      const d = await getTaskDetail(t.db, ops, taskId, {}, { ...archives, dir: elsewhere });
      expect(d?.task.archived?.unavailable).toMatchObject({ reason: "not_found" });
      expect(d?.task.archived?.unavailable?.message).toContain(archiveId);
      // Moved after it was found: the directory cached is gone, a new scan finds it; then removed.
      const moved = path.join(root, "moved");
      cpSync(path.join(root, "2026-12"), moved, { recursive: true });
      rmSync(path.join(root, "2026-12"), { recursive: true });
      const again = await getTaskDetail(t.db, ops, taskId, {}, archives);
      expect(again?.task.archived).toMatchObject({ source: "files", unavailable: null });
      rmSync(moved, { recursive: true });
      const gone = await getTaskDetail(t.db, ops, taskId, {}, archives);
      expect(gone?.task.archived?.unavailable).toMatchObject({ reason: "not_found" });
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });
});
