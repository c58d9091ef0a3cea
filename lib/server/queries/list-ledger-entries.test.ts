import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { withTransaction } from "../../../db/client";
import { setUpTestDatabase } from "../../../db/testing/database";
import { testTokenViewer, testViewer } from "../../auth/testing";
import { AuthError } from "../../domain/access";
import { entryHash, GENESIS_HASH, sha256Hex } from "../../domain/hash";
import type { JsonValue } from "../../domain/json";
import { insertTask } from "../commands/enqueue-task";
import { appendLedger, taskStream } from "../ledger/append-ledger";
import { ledgerApiPageSchema } from "./ledger-entry-dto";
import {
  decodeLedgerCursor,
  encodeLedgerCursor,
  expandKinds,
  LEDGER_API_MAX_PAGE_SIZE,
  LEDGER_API_PAGE_SIZE,
  LedgerCursorError,
  type LedgerFilter,
  ledgerApiQuerySchema,
  ledgerSearchSchema,
  SCREEN_MAX_DATA_BYTES,
} from "./ledger-search";
import { listLedgerEntries, listLedgerPage } from "./list-ledger-entries";
import { listLedgerKinds } from "./list-ledger-kinds";
import { HIDDEN_PAYLOAD } from "./payloads";

const t = await setUpTestDatabase("ledger-list");
const ops = testViewer("ops");

describe("listLedgerEntries", () => {
  it("pages from newest to oldest without gaps or repeats, and filters by kind", async () => {
    const appended = await withTransaction(t.pool, (client) =>
      appendLedger(
        client,
        "system",
        Array.from({ length: 23 }, (_, i) => ({
          kind: i % 3 === 0 ? "policy.changed" : "note.added",
          actor: "t",
          data: { i },
        })),
      ),
    );
    const all = appended.map((e) => e.id).sort((a, b) => b - a);

    const seen: number[] = [];
    let cursor: string | undefined;
    for (let guard = 0; guard < 10; guard++) {
      const page = await listLedgerEntries(t.db, ops, { cursor }, 10);
      seen.push(...page.entries.map((e) => e.id));
      if (page.nextCursor === null) break;
      cursor = page.nextCursor;
    }
    expect(seen).toEqual(all);

    const policies = await listLedgerEntries(t.db, ops, { kind: ["policy.changed"] }, 100);
    expect(policies.entries).toHaveLength(8);
    expect(policies.entries.every((e) => e.kind === "policy.changed")).toBe(true);
    expect(policies.nextCursor).toBeNull();
  });

  it("gives each entry the hash it chains onto, read from the entry before it, so a client can check the chain", async () => {
    const { taskId } = await withTransaction(t.pool, (c) =>
      insertTask(c, { agent: "chain-reader", input: { n: 0 }, actor: "token:ci" }),
    );
    await withTransaction(t.pool, (c) =>
      appendLedger(c, taskStream(taskId), [
        { kind: "note.added", actor: "t", taskId, data: { i: 1 } },
        { kind: "note.added", actor: "t", taskId, data: { i: 2 } },
      ]),
    );
    const page = await listLedgerPage(t.db, ops, { taskId });
    const entries = page.entries.toSorted((a, b) => a.seq - b.seq);
    expect(entries.map((e) => e.seq)).toEqual([1, 2, 3]);
    let prev = GENESIS_HASH;
    for (const e of entries) {
      expect(e.prevHash).toBe(prev);
      expect(
        entryHash(prev, { ...e, data: e.data as JsonValue }),
        `${e.kind} at seq ${e.seq}`,
      ).toBe(e.hash);
      prev = e.hash;
    }
  });

  it("returns an exact page without promising an empty older one", async () => {
    const page = await listLedgerEntries(t.db, ops, { kind: ["policy.changed"] }, 8);
    expect(page.entries).toHaveLength(8);
    expect(page.nextCursor).toBeNull();
  });

  it("carries each entry's data, but not a data too large for a screen", async () => {
    const [big] = await withTransaction(t.pool, (client) =>
      appendLedger(client, "system", {
        kind: "ledger.checkpoint",
        actor: "t",
        // Random bytes do not compress: stored larger than the screen's bound.
        data: { heads: randomBytes(SCREEN_MAX_DATA_BYTES * 2).toString("base64") },
      }),
    );
    const page = await listLedgerEntries(t.db, ops, { kind: ["ledger.checkpoint", "note.added"] });
    const shown = page.entries.find((e) => e.id === big?.id);
    // Not toBeNull: a failure would print 170 kB.
    expect(shown?.data === null).toBe(true);
    expect(shown?.dataOmittedBytes).toBeGreaterThan(SCREEN_MAX_DATA_BYTES);
    const note = page.entries.find((e) => e.kind === "note.added");
    expect(note?.data).toMatchObject({ i: expect.any(Number) });
    expect(note?.dataOmittedBytes).toBeNull();
    // The API has no such bound: an export gets every entry whole.
    const api = await listLedgerPage(t.db, ops, { kind: ["ledger.checkpoint"] });
    const whole = api.entries[0]?.data;
    expect(typeof whole === "object" && whole !== null && "heads" in whole).toBe(true);
  });

  it("summarizes a heads chunk too large to show, and cuts an API page after a megabyte of data", async () => {
    const chunk = (i: number) => ({
      index: i,
      first: `task:${i}a`,
      last: `task:${i}z`,
      count: 2,
      // Incompressible, so each is stored at about 700 kB.
      heads: randomBytes(512 * 1024).toString("base64"),
      digest: "d".repeat(64),
    });
    const appended = await withTransaction(t.pool, (client) =>
      appendLedger(
        client,
        "system",
        [0, 1, 2].map((i) => ({ kind: "ledger.checkpoint_heads", actor: "t", data: chunk(i) })),
      ),
    );
    const screen = await listLedgerEntries(t.db, ops, { kind: ["ledger.checkpoint_heads"] });
    const newest = screen.entries[0];
    expect(newest?.data === null).toBe(true);
    expect(newest?.dataPreview).toEqual({
      index: 2,
      first: "task:2a",
      last: "task:2z",
      count: 2,
      digest: "d".repeat(64),
    });
    // The API keeps each entry whole but stops once a page passes LEDGER_API_MAX_PAGE_BYTES.
    const ids: number[] = [];
    let cursor: string | undefined;
    do {
      const page = await listLedgerPage(t.db, ops, { kind: ["ledger.checkpoint_heads"], cursor });
      expect(page.entries.length).toBeLessThanOrEqual(2);
      for (const e of page.entries) {
        expect(typeof e.data === "object" && e.data !== null && "heads" in e.data).toBe(true);
        ids.push(e.id);
      }
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(ids).toEqual(appended.map((a) => a.id).reverse());
  });

  it("maps rows to plain DTOs with ISO times", async () => {
    const [entry] = (await listLedgerEntries(t.db, ops, {}, 1)).entries;
    expect(entry).toMatchObject({ stream: "system", actor: "t", taskId: null, key: null });
    expect(entry?.at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });
});

describe("listLedgerEntries authorization", () => {
  it("refuses without a viewer (401) and without ledger:read (403)", async () => {
    await expect(listLedgerEntries(t.db, null, {})).rejects.toMatchObject({
      name: "AuthError",
      status: 401,
    });
    const denied = listLedgerEntries(t.db, testTokenViewer(["tasks:read"], "reader"), {});
    await expect(denied).rejects.toBeInstanceOf(AuthError);
    await expect(denied).rejects.toMatchObject({
      status: 403,
      message: 'token "reader" may not do this (needs ledger:read)',
    });
  });
});

// ─── listLedgerPage (GET /ledger) ───────────────────────────────────────────────────────────

type Staged = {
  id: number;
  at: Date;
  kind: string;
  actor: string;
  taskId: string | null;
  key: string | null;
};

const hex = (seed: string) => sha256Hex(seed);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Every page of a filter, following nextCursor; fails on an oversized page or a loop. */
async function walk(filter: LedgerFilter, limit: number, viewer = ops) {
  const ids: number[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 200; pages++) {
    const page = await listLedgerPage(t.db, viewer, { ...filter, cursor, limit });
    expect(page.entries.length).toBeLessThanOrEqual(limit);
    ids.push(...page.entries.map((e) => e.id));
    if (page.nextCursor === null) return ids;
    cursor = page.nextCursor;
  }
  throw new Error("more than 200 pages");
}

describe("listLedgerPage", () => {
  const agentOf = new Map<string, string>();
  const toolOf = new Map<string, string>();
  let taskA1 = "";
  let taskR1 = "";
  const keyA1 = hex("effect-a1");
  const keyR1 = hex("effect-r1");
  const keyR2 = hex("approval-only-r2");
  let windowFrom = new Date();
  let windowTo = new Date();

  /** Ground truth, read without the query under test: every entry, newest first by (at, id). */
  async function everything(): Promise<Staged[]> {
    const { rows } = await t.pool.query<{
      id: number;
      at: Date;
      kind: string;
      actor: string;
      task_id: string | null;
      key: string | null;
    }>("select id, at, kind, actor, task_id, key from ledger_entries");
    return rows
      .map((r) => ({
        id: r.id,
        at: r.at,
        kind: r.kind,
        actor: r.actor,
        taskId: r.task_id,
        key: r.key,
      }))
      .sort((a, b) => b.at.getTime() - a.at.getTime() || b.id - a.id);
  }
  const expected = async (keep: (e: Staged) => boolean) => {
    const ids = (await everything()).filter(keep).map((e) => e.id);
    expect(ids.length).toBeGreaterThan(0);
    return ids;
  };

  beforeAll(async () => {
    const enqueue = (agent: string, actor: string) =>
      withTransaction(t.pool, (c) => insertTask(c, { agent, input: { n: 1 }, actor }));
    taskA1 = (await enqueue("invoice-reminder", "token:ci")).taskId;
    const taskA2 = (await enqueue("invoice-reminder", "user:ops@example.com")).taskId;
    taskR1 = (await enqueue("refund", "token:ci")).taskId;
    for (const [id, agent] of [
      [taskA1, "invoice-reminder"],
      [taskA2, "invoice-reminder"],
      [taskR1, "refund"],
    ] as const)
      agentOf.set(id, agent);
    const effect = (key: string, taskId: string, tool: string) =>
      t.pool.query(
        `insert into effects (key, task_id, step_seq, tool, intent, args, fingerprint, status)
         values ($1, $2, 2, $3, '{}', '{"secret":"x"}', $4, 'succeeded')`,
        [key, taskId, tool, hex(`fp-${key}`)],
      );
    await effect(keyA1, taskA1, "send_email");
    await effect(keyR1, taskR1, "refund");
    // Asked for approval and never performed: only the approvals table knows its tool.
    await t.pool.query(
      `insert into approvals (task_id, effect_key, fingerprint, tool, args) values ($1, $2, $3, 'refund', '{}')`,
      [taskR1, keyR2, hex("fp-r2")],
    );
    toolOf.set(keyA1, "send_email").set(keyR1, "refund").set(keyR2, "refund");

    // As the runtime writes them: effect and approval entries name their tool, outcome.resolved
    // does not (the tool filter finds it by its key's effect).
    const append = (taskId: string, kind: string, actor: string, key?: string) =>
      withTransaction(t.pool, (c) =>
        appendLedger(c, `task:${taskId}`, {
          kind,
          actor,
          taskId,
          key,
          data:
            key === undefined || kind === "outcome.resolved"
              ? { args: "secret" }
              : { tool: toolOf.get(key) ?? "", args: "secret" },
        }),
      );
    await append(taskA1, "attempt.started", "worker:w1");
    await append(taskA1, "effect.started", "worker:w1", keyA1);
    await append(taskR1, "attempt.started", "worker:w2");
    await sleep(15);
    const [first] = await append(taskR1, "approval.requested", "worker:w2", keyR2);
    windowFrom = first?.at ?? new Date();
    await append(taskA1, "effect.succeeded", "worker:w1", keyA1);
    await append(taskA2, "attempt.started", "worker:w1");
    await append(taskR1, "review.approved", "user:rita@example.com");
    await sleep(15);
    const [after] = await append(taskA2, "attempt.failed", "worker:w1");
    windowTo = after?.at ?? new Date();
    await append(taskR1, "effect.started", "worker:w2", keyR1);
    await append(taskR1, "effect.succeeded", "worker:w2", keyR1);
    await append(taskR1, "outcome.resolved", "user:rita@example.com", keyR1);
    // A bulk action's outcome for a member names the task from the bulk's own stream: the task
    // filter and free text find it by its task id, not by the task's stream.
    await withTransaction(t.pool, (c) =>
      appendLedger(c, "bulk:5a0c8a52-3b1e-4a55-9d2f-0d8e1f6b7c90", {
        kind: "bulk.member_finished",
        actor: "user:rita@example.com",
        taskId: taskA1,
        data: { outcome: "done" },
      }),
    );
    await withTransaction(t.pool, (c) =>
      appendLedger(c, "system", {
        kind: "policy.changed",
        actor: "user:rita@example.com",
        data: {},
      }),
    );
  });

  it("pages through everything newest first, without gaps or repeats, at any page size", async () => {
    const all = (await everything()).map((e) => e.id);
    for (const limit of [1, 7, 200]) expect(await walk({}, limit)).toEqual(all);
  });

  it("filters by kind, kind list, agent, tool, actor, task, key and time window, across pages", async () => {
    const cases: [LedgerFilter, (e: Staged) => boolean][] = [
      [{ kind: ["effect.started"] }, (e) => e.kind === "effect.started"],
      [
        { kind: ["effect.succeeded", "attempt.started"] },
        (e) => e.kind === "effect.succeeded" || e.kind === "attempt.started",
      ],
      [{ agent: "invoice-reminder" }, (e) => agentOf.get(e.taskId ?? "") === "invoice-reminder"],
      [{ agent: "refund" }, (e) => agentOf.get(e.taskId ?? "") === "refund"],
      [{ tool: "refund" }, (e) => toolOf.get(e.key ?? "") === "refund"],
      [{ tool: "send_email" }, (e) => toolOf.get(e.key ?? "") === "send_email"],
      [{ actor: "user:rita@example.com" }, (e) => e.actor === "user:rita@example.com"],
      [{ taskId: taskA1 }, (e) => e.taskId === taskA1],
      [{ key: keyR1 }, (e) => e.key === keyR1],
      // A key whose effect never ran (only its approval names the task), free text by task id
      // (with the bulk's entry about it) and by a key's prefix.
      [{ key: keyR2 }, (e) => e.key === keyR2],
      [{ q: taskA1 }, (e) => e.taskId === taskA1],
      [{ q: keyR2.slice(0, 12) }, (e) => e.key === keyR2],
      [
        { taskId: taskA1, kind: ["bulk.member_finished"] },
        (e) => e.taskId === taskA1 && e.kind === "bulk.member_finished",
      ],
      [{ from: windowFrom, to: windowTo }, (e) => e.at >= windowFrom && e.at < windowTo],
      [
        { agent: "refund", kind: ["effect.started", "approval.requested"], actor: "worker:w2" },
        (e) =>
          agentOf.get(e.taskId ?? "") === "refund" &&
          (e.kind === "effect.started" || e.kind === "approval.requested") &&
          e.actor === "worker:w2",
      ],
    ];
    const total = (await everything()).length;
    for (const [filter, keep] of cases) {
      const want = await expected(keep);
      expect(want.length, JSON.stringify(filter)).toBeLessThan(total);
      expect(await walk(filter, 2), JSON.stringify(filter)).toEqual(want);
    }
    // The tool filter reaches an approval request whose effect never ran, and an entry whose
    // data does not name the tool through its key.
    expect(await walk({ tool: "refund", kind: ["approval.requested"] }, 5)).toHaveLength(1);
    expect(await walk({ tool: "refund", kind: ["outcome.resolved"] }, 5)).toHaveLength(1);
    expect(await walk({ tool: "send_email", kind: ["outcome.resolved"] }, 5)).toEqual([]);
    expect(await walk({ agent: "nobody" }, 5)).toEqual([]);
  });

  it("keeps its place while new entries arrive: the next page continues where the last one ended", async () => {
    const before = (await everything()).map((e) => e.id);
    const first = await listLedgerPage(t.db, ops, { limit: 4 });
    await withTransaction(t.pool, (c) =>
      appendLedger(c, "system", { kind: "note.added", actor: "t", data: {} }),
    );
    const rest: number[] = [];
    let cursor = first.nextCursor;
    while (cursor !== null) {
      const page = await listLedgerPage(t.db, ops, { cursor, limit: 4 });
      rest.push(...page.entries.map((e) => e.id));
      cursor = page.nextCursor;
    }
    expect([...first.entries.map((e) => e.id), ...rest]).toEqual(before);
  });

  it("refuses a cursor it did not issue, clearly, and a limit out of range", async () => {
    const bad = [
      "not a cursor!",
      "",
      Buffer.from("12").toString("base64url"),
      Buffer.from("1700000000000.0").toString("base64url"),
      Buffer.from("1700000000000.99999999999999999").toString("base64url"),
      Buffer.from("x.5").toString("base64url"),
    ];
    for (const cursor of bad) {
      await expect(listLedgerPage(t.db, ops, { cursor })).rejects.toBeInstanceOf(LedgerCursorError);
      await expect(listLedgerPage(t.db, ops, { cursor })).rejects.toThrow(/cursor is not valid/);
      const parsed = ledgerSearchSchema.safeParse({ cursor });
      expect(parsed.success).toBe(false);
    }
    const at = new Date("2025-01-02T03:04:05.678Z");
    expect(decodeLedgerCursor(encodeLedgerCursor({ at, id: 42 }))).toEqual({ at, id: 42 });
    await expect(listLedgerPage(t.db, ops, { limit: 0 })).rejects.toThrow(/limit/);
    await expect(
      listLedgerPage(t.db, ops, { limit: LEDGER_API_MAX_PAGE_SIZE + 1 }),
    ).rejects.toThrow(/limit/);
    expect((await listLedgerPage(t.db, ops, {})).entries.length).toBeLessThanOrEqual(
      LEDGER_API_PAGE_SIZE,
    );
    expect(ledgerSearchSchema.parse({ limit: "25" })).toEqual({ limit: 25 });
    const tooBig = ledgerSearchSchema.safeParse({ limit: "1000" });
    expect(tooBig.error?.issues[0]?.message).toBe(`must be at most ${LEDGER_API_MAX_PAGE_SIZE}.`);
  });

  it("parses filters from query-string text and says what is wrong", () => {
    expect(
      ledgerSearchSchema.parse({
        kind: "effect.started, effect.succeeded,effect.started",
        key: keyA1.toUpperCase(),
        taskId: taskA1.toUpperCase(),
        from: "2025-01-01T00:00:00+01:00",
      }),
    ).toEqual({
      kind: ["effect.started", "effect.succeeded"],
      key: keyA1,
      taskId: taskA1,
      from: new Date("2024-12-31T23:00:00Z"),
    });
    expect(ledgerSearchSchema.parse({ kind: ["a.b", "c"] }).kind).toEqual(["a.b", "c"]);
    expect(ledgerSearchSchema.parse({ kind: "effect.*,task.enqueued" }).kind).toEqual([
      "effect.*",
      "task.enqueued",
    ]);
    expect(ledgerSearchSchema.parse({ q: "  ada@example.com " }).q).toBe("ada@example.com");
    // The screen ignores parameters it does not know; the API says a typo is one.
    expect(ledgerSearchSchema.parse({ x: "1" })).toEqual({});
    expect(ledgerApiQuerySchema.safeParse({ x: "1" }).success).toBe(false);
    const problems = (input: unknown) =>
      (ledgerSearchSchema.safeParse(input).error?.issues ?? []).map(
        (i) => `${i.path.join(".")}: ${i.message}`,
      );
    expect(problems({ kind: "Task.Enqueued" })[0]).toMatch(/^kind\.0: must be a ledger entry kind/);
    expect(problems({ kind: "effect*" })[0]).toMatch(/^kind\.0: must be a ledger entry kind/);
    expect(problems({ kind: "*" })[0]).toMatch(/^kind\.0: must be a ledger entry kind/);
    expect(problems({ q: "x".repeat(321) })).toEqual(["q: must be at most 320 characters."]);
    expect(problems({ q: "a\u0000b" })).toEqual(["q: must not contain control characters."]);
    expect(problems({ kind: "," })).toEqual(["kind: must name at least one kind."]);
    expect(problems({ taskId: "42" })[0]).toMatch(/^taskId: is not a task id/);
    expect(problems({ key: "abc" })[0]).toMatch(/^key: is not an effect key/);
    expect(problems({ from: "yesterday" })[0]).toMatch(/^from: must be an ISO 8601 date/);
    expect(problems({ from: "2025-01-02T00:00:00Z", to: "2025-01-01T00:00:00Z" })).toEqual([
      "to: from must be earlier than to.",
    ]);
    expect(problems({ agent: "  " })).toEqual(["agent: must name an agent."]);
  });

  it("returns entries that match the published schemas, payloads hidden without payloads:read", async () => {
    const full = await listLedgerPage(t.db, ops, { key: keyA1, limit: 10 });
    expect(ledgerApiPageSchema.parse(full)).toEqual(full);
    expect(full.payloadsHidden).toBe(false);
    expect(full.entries.map((e) => e.kind)).toEqual(["effect.succeeded", "effect.started"]);
    expect(full.entries[0]).toMatchObject({ taskId: taskA1, key: keyA1, data: { args: "secret" } });
    expect(full.entries[0]?.hash).toMatch(/^[0-9a-f]{64}$/);

    const reader = testTokenViewer(["ledger:read"], "reader");
    const hidden = await listLedgerPage(t.db, reader, { key: keyA1, limit: 10 });
    expect(hidden.payloadsHidden).toBe(true);
    expect(hidden.entries.map((e) => e.data)).toEqual([HIDDEN_PAYLOAD, HIDDEN_PAYLOAD]);
    expect(hidden.entries.map((e) => e.id)).toEqual(full.entries.map((e) => e.id));

    // The lead generates OpenAPI from these; they must convert.
    expect(z.toJSONSchema(ledgerApiQuerySchema, { io: "input" })).toMatchObject({
      type: "object",
    });
    expect(z.toJSONSchema(ledgerApiPageSchema)).toMatchObject({ type: "object" });
  });

  it("refuses without a viewer (401) and without ledger:read (403)", async () => {
    await expect(listLedgerPage(t.db, null, {})).rejects.toMatchObject({ status: 401 });
    await expect(
      listLedgerPage(t.db, testTokenViewer(["tasks:read", "payloads:read"]), {}),
    ).rejects.toMatchObject({ name: "AuthError", status: 403 });
  });
});

describe("the ledger explorer's kind prefixes and free text", () => {
  const mailKey = hex("free-text-mail");
  const refundKey = hex("free-text-refund");
  let mailTask = "";
  let refundTask = "";

  beforeAll(async () => {
    const enqueue = (agent: string) =>
      withTransaction(t.pool, (c) => insertTask(c, { agent, input: { n: 2 }, actor: "token:ci" }));
    mailTask = (await enqueue("invoice-reminder")).taskId;
    refundTask = (await enqueue("refund")).taskId;
    await t.pool.query(
      `insert into effects (key, task_id, step_seq, tool, intent, args, fingerprint, status, result)
       values ($1, $2, 1, 'send_email', $3, $4, $5, 'succeeded', $6),
              ($7, $8, 1, 'refund', $9, '{}', $10, 'succeeded', $11)`,
      [
        mailKey,
        mailTask,
        { to: "Grace@Example.com", invoiceId: "inv-free-1" },
        { to: "Grace@Example.com", subject: "=cmd|' /C calc'!A0" },
        hex("fp-mail"),
        { messageId: "<m-free-1@agent-ledger.local>" },
        refundKey,
        refundTask,
        { orderId: "ord-free-77" },
        hex("fp-refund"),
        { refundId: "re_free_1" },
      ],
    );
    for (const [taskId, key] of [
      [mailTask, mailKey],
      [refundTask, refundKey],
    ] as const) {
      await withTransaction(t.pool, (c) =>
        appendLedger(c, `task:${taskId}`, [
          { kind: "attempt.started", actor: "worker:w9", taskId, data: {} },
          { kind: "effect.started", actor: "worker:w9", taskId, key, data: {} },
          { kind: "effect.succeeded", actor: "worker:w9", taskId, key, data: {} },
        ]),
      );
    }
  });

  const kindsAndKeys = async (filter: LedgerFilter) =>
    (await listLedgerPage(t.db, ops, { ...filter, limit: 200 })).entries.map(
      (e) => `${e.kind} ${e.key === mailKey ? "mail" : e.key === refundKey ? "refund" : e.taskId}`,
    );

  it("finds an email's entries by its recipient in any case, its Message-ID and its key", async () => {
    const mail = ["effect.succeeded mail", "effect.started mail"];
    expect(await kindsAndKeys({ q: "grace@example.com" })).toEqual(mail);
    expect(await kindsAndKeys({ q: "GRACE@example.com" })).toEqual(mail);
    expect(await kindsAndKeys({ q: "<m-free-1@agent-ledger.local>" })).toEqual(mail);
    expect(await kindsAndKeys({ q: "m-free-1@agent-ledger.local" })).toEqual(mail);
    expect(await kindsAndKeys({ q: `${mailKey}@mail.example.com` })).toEqual(mail);
    expect(await kindsAndKeys({ q: mailKey.slice(0, 10) })).toEqual(mail);
    expect(await kindsAndKeys({ q: "inv-free-1" })).toEqual(mail);
    // Not a substring search: part of an address matches nothing.
    expect(await kindsAndKeys({ q: "grace" })).toEqual([]);
  });

  it("finds a refund by its provider id and its intent, and a task by its id", async () => {
    const refund = ["effect.succeeded refund", "effect.started refund"];
    expect(await kindsAndKeys({ q: "re_free_1" })).toEqual(refund);
    expect(await kindsAndKeys({ q: "ord-free-77" })).toEqual(refund);
    expect(await kindsAndKeys({ q: refundTask })).toEqual([
      ...refund,
      `attempt.started ${refundTask}`,
      `task.enqueued ${refundTask}`,
    ]);
    // Free text combines with the other filters.
    expect(await kindsAndKeys({ q: "re_free_1", kind: ["effect.started"] })).toEqual([
      "effect.started refund",
    ]);
    expect(await kindsAndKeys({ q: "re_free_1", agent: "invoice-reminder" })).toEqual([]);
  });

  it("expands a kind prefix to the kinds that exist, found without scanning the ledger", async () => {
    const kinds = await listLedgerKinds(t.db, ops);
    expect(kinds).toEqual([...kinds].sort());
    expect(kinds).toEqual(expect.arrayContaining(["effect.started", "effect.succeeded"]));
    expect(new Set(kinds).size).toBe(kinds.length);
    const { rows } = await t.pool.query<{ kind: string }>(
      "select distinct kind from ledger_entries order by kind",
    );
    expect(kinds).toEqual(rows.map((r) => r.kind));

    const effectsOnly = await listLedgerPage(t.db, ops, { kind: ["effect.*"], limit: 200 });
    expect(effectsOnly.entries.length).toBeGreaterThan(0);
    expect(effectsOnly.entries.every((e) => e.kind.startsWith("effect."))).toBe(true);
    const { rows: count } = await t.pool.query<{ n: number }>(
      "select count(*)::int as n from ledger_entries where kind like 'effect.%'",
    );
    expect(effectsOnly.entries).toHaveLength(count[0]?.n ?? -1);
    expect((await listLedgerPage(t.db, ops, { kind: ["nothing.*"] })).entries).toEqual([]);
    await expect(listLedgerKinds(t.db, null)).rejects.toMatchObject({ status: 401 });
  });

  it("expandKinds takes exact kinds and whole-word prefixes", () => {
    const known = ["effect.failed", "effect.started", "effects.x", "task.enqueued"];
    expect(expandKinds(["effect.*"], known)).toEqual(["effect.failed", "effect.started"]);
    expect(expandKinds(["task.enqueued", "effect.*"], known)).toEqual([
      "effect.failed",
      "effect.started",
      "task.enqueued",
    ]);
    expect(expandKinds(["not.yet"], known)).toEqual(["not.yet"]);
    expect(expandKinds(["x.*"], known)).toEqual([]);
  });
});
