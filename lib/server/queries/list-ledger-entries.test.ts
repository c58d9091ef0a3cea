import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { withTransaction } from "../../../db/client";
import { setUpTestDatabase } from "../../../db/testing/database";
import { testTokenViewer, testViewer } from "../../auth/testing";
import { AuthError } from "../../domain/access";
import { sha256Hex } from "../../domain/hash";
import { insertTask } from "../commands/enqueue-task";
import { appendLedger } from "../ledger/append-ledger";
import {
  decodeLedgerCursor,
  encodeLedgerCursor,
  LEDGER_API_MAX_PAGE_SIZE,
  LEDGER_API_PAGE_SIZE,
  LedgerCursorError,
  type LedgerFilter,
  ledgerApiPageSchema,
  ledgerFilterSchema,
  ledgerPageParamsSchema,
  listLedgerEntries,
  listLedgerPage,
} from "./list-ledger-entries";
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
    let before: number | undefined;
    for (let guard = 0; guard < 10; guard++) {
      const page = await listLedgerEntries(t.db, ops, { before }, 10);
      seen.push(...page.entries.map((e) => e.id));
      if (page.olderBefore === null) break;
      before = page.olderBefore;
    }
    expect(seen).toEqual(all);

    const policies = await listLedgerEntries(t.db, ops, { kind: "policy.changed" }, 100);
    expect(policies.entries).toHaveLength(8);
    expect(policies.entries.every((e) => e.kind === "policy.changed")).toBe(true);
    expect(policies.olderBefore).toBeNull();
  });

  it("returns an exact page without promising an empty older one", async () => {
    const page = await listLedgerEntries(t.db, ops, { kind: "policy.changed" }, 8);
    expect(page.entries).toHaveLength(8);
    expect(page.olderBefore).toBeNull();
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
    const page = await listLedgerPage(t.db, viewer, filter, { cursor, limit });
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

    const append = (taskId: string, kind: string, actor: string, key?: string) =>
      withTransaction(t.pool, (c) =>
        appendLedger(c, `task:${taskId}`, { kind, actor, taskId, key, data: { args: "secret" } }),
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
    // The tool filter reaches an approval request whose effect never ran.
    expect(await walk({ tool: "refund", kind: ["approval.requested"] }, 5)).toHaveLength(1);
    expect(await walk({ agent: "nobody" }, 5)).toEqual([]);
  });

  it("keeps its place while new entries arrive: the next page continues where the last one ended", async () => {
    const before = (await everything()).map((e) => e.id);
    const first = await listLedgerPage(t.db, ops, {}, { limit: 4 });
    await withTransaction(t.pool, (c) =>
      appendLedger(c, "system", { kind: "note.added", actor: "t", data: {} }),
    );
    const rest: number[] = [];
    let cursor = first.nextCursor;
    while (cursor !== null) {
      const page = await listLedgerPage(t.db, ops, {}, { cursor, limit: 4 });
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
      await expect(listLedgerPage(t.db, ops, {}, { cursor })).rejects.toBeInstanceOf(
        LedgerCursorError,
      );
      await expect(listLedgerPage(t.db, ops, {}, { cursor })).rejects.toThrow(
        /cursor is not valid/,
      );
      const parsed = ledgerPageParamsSchema.safeParse({ cursor });
      expect(parsed.success).toBe(false);
    }
    const at = new Date("2025-01-02T03:04:05.678Z");
    expect(decodeLedgerCursor(encodeLedgerCursor({ at, id: 42 }))).toEqual({ at, id: 42 });
    await expect(listLedgerPage(t.db, ops, {}, { limit: 0 })).rejects.toThrow(/limit/);
    await expect(
      listLedgerPage(t.db, ops, {}, { limit: LEDGER_API_MAX_PAGE_SIZE + 1 }),
    ).rejects.toThrow(/limit/);
    expect(ledgerPageParamsSchema.parse({})).toEqual({ limit: LEDGER_API_PAGE_SIZE });
    expect(ledgerPageParamsSchema.parse({ limit: "25" })).toEqual({ limit: 25 });
    const tooBig = ledgerPageParamsSchema.safeParse({ limit: "1000" });
    expect(tooBig.error?.issues[0]?.message).toBe(`must be at most ${LEDGER_API_MAX_PAGE_SIZE}.`);
  });

  it("parses filters from query-string text and says what is wrong", () => {
    expect(
      ledgerFilterSchema.parse({
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
    expect(ledgerFilterSchema.parse({ kind: ["a.b", "c"] }).kind).toEqual(["a.b", "c"]);
    const problems = (input: unknown) =>
      (ledgerFilterSchema.safeParse(input).error?.issues ?? []).map(
        (i) => `${i.path.join(".")}: ${i.message}`,
      );
    expect(problems({ kind: "Task.Enqueued" })[0]).toMatch(/^kind\.0: must be a ledger entry kind/);
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
    const full = await listLedgerPage(t.db, ops, { key: keyA1 }, { limit: 10 });
    expect(ledgerApiPageSchema.parse(full)).toEqual(full);
    expect(full.payloadsHidden).toBe(false);
    expect(full.entries.map((e) => e.kind)).toEqual(["effect.succeeded", "effect.started"]);
    expect(full.entries[0]).toMatchObject({ taskId: taskA1, key: keyA1, data: { args: "secret" } });
    expect(full.entries[0]?.hash).toMatch(/^[0-9a-f]{64}$/);

    const reader = testTokenViewer(["ledger:read"], "reader");
    const hidden = await listLedgerPage(t.db, reader, { key: keyA1 }, { limit: 10 });
    expect(hidden.payloadsHidden).toBe(true);
    expect(hidden.entries.map((e) => e.data)).toEqual([HIDDEN_PAYLOAD, HIDDEN_PAYLOAD]);
    expect(hidden.entries.map((e) => e.id)).toEqual(full.entries.map((e) => e.id));

    // The lead generates OpenAPI from these; they must convert.
    expect(z.toJSONSchema(ledgerFilterSchema, { io: "input" })).toMatchObject({ type: "object" });
    expect(z.toJSONSchema(ledgerPageParamsSchema, { io: "input" })).toMatchObject({
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
