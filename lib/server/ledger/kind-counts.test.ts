// ledger_kind_counts, kept by the ledger_entries trigger of migration 0022: the sum per kind is
// the number of entries of that kind in any snapshot, appenders never wait on each other's
// counter row, and the rows of backends that are gone are folded into a live one's.
import pg from "pg";
import { describe, expect, it } from "vitest";
import { withTransaction } from "../../../db/client";
import { writeFromGoneBackend, writeFromNewBackend } from "../../../db/testing/backends";
import { setUpTestDatabase } from "../../../db/testing/database";
import { appendLedger } from "./append-ledger";

const t = await setUpTestDatabase("kind-counts");

async function counted(): Promise<Map<string, number>> {
  const { rows } = await t.pool.query<{ kind: string; n: number }>(
    "select kind, sum(entries)::int as n from ledger_kind_counts group by kind",
  );
  return new Map(rows.map((r) => [r.kind, r.n]));
}

async function actual(): Promise<Map<string, number>> {
  const { rows } = await t.pool.query<{ kind: string; n: number }>(
    "select kind, count(*)::int as n from ledger_entries group by kind",
  );
  return new Map(rows.map((r) => [r.kind, r.n]));
}

const append = (client: pg.ClientBase, kind: string, n = 1) =>
  appendLedger(
    client,
    "system",
    Array.from({ length: n }, () => ({ kind, actor: "test", data: {} })),
  );

describe("ledger_kind_counts", () => {
  it("counts every committed entry by kind, in one statement or many, and no rolled-back one", async () => {
    await withTransaction(t.pool, (c) => append(c, "note.added", 3));
    await withTransaction(t.pool, async (c) => {
      await append(c, "note.added");
      await append(c, "policy.changed", 2);
    });
    await expect(
      withTransaction(t.pool, async (c) => {
        await append(c, "note.added", 5);
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    expect((await counted()).get("note.added")).toBe(4);
    expect(await counted()).toEqual(await actual());
  });

  it("counts the entries that carry an attempt's start, whatever their kind (0057)", async () => {
    const start = (attempt: number) => ({
      attemptStarted: { attempt, agent: "a", at: "2026-12-07T08:00:00.000Z" },
    });
    const before = await t.pool.query<{ n: number }>(
      "select coalesce(sum(attempts), 0)::int as n from ledger_kind_counts",
    );
    await withTransaction(t.pool, (c) =>
      appendLedger(c, "system", [
        { kind: "effect.started", actor: "test", data: start(1) },
        { kind: "effect.succeeded", actor: "test", data: {} },
        { kind: "worker.lost", actor: "test", data: start(2) },
      ]),
    );
    await expect(
      withTransaction(t.pool, async (c) => {
        await appendLedger(c, "system", { kind: "task.succeeded", actor: "test", data: start(3) });
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    const { rows } = await t.pool.query<{ kind: string; n: number }>(
      "select kind, sum(attempts)::int as n from ledger_kind_counts where attempts > 0 group by kind order by kind",
    );
    expect(rows).toEqual([
      { kind: "effect.started", n: 1 },
      { kind: "worker.lost", n: 1 },
    ]);
    expect(rows.reduce((n, r) => n + r.n, 0)).toBe((before.rows[0]?.n ?? 0) + 2);
    expect(await counted()).toEqual(await actual());
  });

  it("lets two open transactions count the same kind without waiting for each other", async () => {
    const first = new pg.Client({ connectionString: t.appUrl });
    const second = new pg.Client({ connectionString: t.appUrl });
    await Promise.all([first.connect(), second.connect()]);
    try {
      await first.query("begin");
      await second.query("begin");
      // Separate streams: the stream head lock is not what this is about.
      const entry = { kind: "review.noted", actor: "test", data: {} };
      await appendLedger(first, "stream-one", entry);
      // A shared counter row would hold this until `first` commits: the lock timeout says so.
      await second.query("set local lock_timeout = '2s'");
      await appendLedger(second, "stream-two", entry);
      await second.query("commit");
      await first.query("commit");
    } finally {
      await Promise.all([first.end(), second.end()]);
    }
    expect((await counted()).get("review.noted")).toBe(2);
  });

  it("folds the rows of a backend that is gone into the next backend that counts afresh", async () => {
    const pid = await writeFromGoneBackend(t.pool, t.appUrl, (c) => append(c, "user.created", 2));
    const freshPid = await writeFromNewBackend(t.appUrl, (c) => append(c, "user.disabled"));
    // (A reused pid would make the old rows the new backend's own, rightly kept.)
    const { rows } = await t.pool.query(
      "select 1 from ledger_kind_counts where backend = $1 and backend <> $2",
      [pid, freshPid],
    );
    expect(rows).toEqual([]);
    expect((await counted()).get("user.created")).toBe(2);
    expect(await counted()).toEqual(await actual());
  });
});
