import { describe, expect, it } from "vitest";
import { withTransaction } from "../../../db/client";
import { setUpTestDatabase } from "../../../db/testing/database";
import { GENESIS_HASH } from "../../domain/hash";
import { REDACTED } from "../../domain/redact";
import { appendLedger, LedgerInputError, SYSTEM_STREAM } from "./append-ledger";
import { rowHash, verifyLedger } from "./verify-ledger";

const t = await setUpTestDatabase("append");

describe("appendLedger", () => {
  it("chains entries per stream from the genesis hash", async () => {
    const stream = "test:chain";
    const first = await withTransaction(t.pool, (c) =>
      appendLedger(c, stream, [
        { kind: "policy.changed", actor: "admin@example.com", data: { after: 1 } },
        { kind: "policy.changed", actor: "admin@example.com", data: { after: 2 } },
      ]),
    );
    const second = await withTransaction(t.pool, (c) =>
      appendLedger(c, stream, {
        kind: "correction",
        actor: "ops@example.com",
        data: { note: "x" },
      }),
    );
    expect([...first, ...second].map((e) => e.seq)).toEqual([1, 2, 3]);

    const { rows } = await t.pool.query(
      "select seq, at, kind, actor, task_id, key, data, hash from ledger_entries where stream = $1 order by seq",
      [stream],
    );
    let prev = GENESIS_HASH;
    for (const row of rows) {
      expect(row.hash).toBe(rowHash(prev, { ...row, stream }));
      prev = row.hash;
    }
    const head = await t.pool.query(
      "select head_seq, head_hash from ledger_streams where stream = $1",
      [stream],
    );
    expect(head.rows[0]).toEqual({ head_seq: 3, head_hash: prev });
  });

  it("redacts sensitive fields before hashing and storing", async () => {
    const [entry] = await withTransaction(t.pool, (c) =>
      appendLedger(c, "test:redact", {
        kind: "effect.started",
        actor: "worker",
        data: { args: { to: "a@b.c", apiKey: "sk_live_123" } },
        sensitive: ["args.apiKey"],
      }),
    );
    const { rows } = await t.pool.query(
      "select data::text as data from ledger_entries where id = $1",
      [entry?.id],
    );
    expect(rows[0].data).not.toContain("sk_live_123");
    expect(JSON.parse(rows[0].data)).toEqual({ args: { to: "a@b.c", apiKey: REDACTED } });
  });

  it("rejects bad input with a clear error and writes nothing", async () => {
    const before = await t.pool.query("select count(*)::int as n from ledger_entries");
    await expect(
      withTransaction(t.pool, (c) => appendLedger(c, "test:bad", { kind: "Bad Kind", actor: "a" })),
    ).rejects.toThrow(LedgerInputError);
    await expect(
      withTransaction(t.pool, (c) =>
        appendLedger(c, "test:bad", { kind: "x.y", actor: "a", data: { s: "\u0000" } }),
      ),
    ).rejects.toThrow(/U\+0000/);
    await expect(
      withTransaction(t.pool, (c) => appendLedger(c, "has space", { kind: "x", actor: "a" })),
    ).rejects.toThrow(/stream name/);
    const after = await t.pool.query("select count(*)::int as n from ledger_entries");
    expect(after.rows[0].n).toBe(before.rows[0].n);
  });

  it("rolls back with the caller's transaction: no entry without its state change", async () => {
    await expect(
      withTransaction(t.pool, async (c) => {
        await appendLedger(c, "test:rollback", { kind: "x", actor: "a" });
        throw new Error("state change failed");
      }),
    ).rejects.toThrow("state change failed");
    const { rows } = await t.pool.query(
      "select count(*)::int as n from ledger_entries where stream = 'test:rollback'",
    );
    expect(rows[0].n).toBe(0);
  });

  it("100 concurrent appenders on one stream make one unbroken chain", async () => {
    const stream = "test:concurrent";
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        withTransaction(t.pool, (c) =>
          appendLedger(c, stream, { kind: "test.append", actor: `appender-${i}`, data: { i } }),
        ),
      ),
    );
    const seqs = results
      .flat()
      .map((e) => e.seq)
      .sort((a, b) => a - b);
    expect(seqs).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    // Also 100 concurrent first appends to 100 new streams race on creating the head rows.
    await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        withTransaction(t.pool, (c) =>
          appendLedger(c, `test:new-${i % 10}`, { kind: "test.append", actor: "a", data: { i } }),
        ),
      ),
    );
    const report = await verifyLedger(t.pool);
    expect(report.problems).toEqual([]);
    expect(report.ok).toBe(true);
    const { rows } = await t.pool.query(
      "select count(*)::int as n, max(seq)::int as max from ledger_entries where stream = $1",
      [stream],
    );
    expect(rows[0]).toEqual({ n: 100, max: 100 });
  });
});

describe("append-only enforcement", () => {
  it("the application role may not UPDATE, DELETE or TRUNCATE ledger entries", async () => {
    await withTransaction(t.pool, (c) =>
      appendLedger(c, SYSTEM_STREAM, { kind: "test.entry", actor: "a" }),
    );
    const attempts = [
      "update ledger_entries set actor = 'mallory'",
      "delete from ledger_entries",
      "truncate ledger_entries",
      "truncate ledger_entries cascade",
      "delete from ledger_streams",
      "truncate ledger_streams cascade",
      "update ledger_streams set head_seq = 0",
    ];
    for (const sql of attempts) {
      await expect(t.pool.query(sql), sql).rejects.toThrow(
        /permission denied|not allowed|may only advance/,
      );
    }
    const { rows } = await t.pool.query("select count(*)::int as n from ledger_entries");
    expect(rows[0].n).toBeGreaterThan(0);
  });

  it("the grants allow only SELECT and INSERT on ledger_entries for the app role", async () => {
    const { rows } = await t.ownerPool.query(
      `select privilege_type from information_schema.role_table_grants
       where table_name = 'ledger_entries' and grantee = 'agent_ledger_app' order by privilege_type`,
    );
    expect(rows.map((r) => r.privilege_type)).toEqual(["INSERT", "SELECT"]);
  });

  it("triggers stop even the schema owner", async () => {
    for (const sql of [
      "update ledger_entries set actor = 'x'",
      "delete from ledger_entries",
      "truncate ledger_entries",
    ]) {
      await expect(t.ownerPool.query(sql), sql).rejects.toThrow(/append-only/);
    }
  });
});
