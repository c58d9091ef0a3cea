// The web app's pool (and every pool made by createPool) through a server restart: idle and
// checked-out connections that die do not crash the process, a query in flight fails with an
// error that isConnectionError recognises, and the next query works on a fresh connection.
import { afterAll, describe, expect, it } from "vitest";
import { createPool, withTransaction } from "./client";
import { backoffDelay, isConnectionError, retryOnConnectionError } from "./retry";
import { startRestartableCluster } from "./testing/restartable-cluster";

const cluster = await startRestartableCluster();
// What the pool reports through its log hook (the web passes logger("db") here).
const reported: Record<string, unknown>[] = [];
const pool = createPool(cluster.appUrl, {
  max: 4,
  applicationName: "agent-ledger-web",
  log: { debug: (fields, message) => reported.push({ ...fields, message }) },
});
afterAll(async () => {
  await pool.end();
  await cluster.destroy();
});

describe("a pool through pg_ctl restart", () => {
  it.each(["fast", "immediate"] as const)(
    "-m %s: in-flight fails cleanly, the next query works",
    async (mode) => {
      // Fill the pool with idle connections, and hold one checked out, as a request would.
      await Promise.all([1, 2, 3].map(() => pool.query("select 1")));
      const held = await pool.connect();
      const inFlight = pool.query("select pg_sleep(30)").then(
        () => undefined,
        (err: unknown) => err,
      );
      await new Promise((r) => setTimeout(r, 200));

      await cluster.restart(mode);

      const err = await inFlight;
      expect(err).toBeInstanceOf(Error);
      expect(isConnectionError(err)).toBe(true);
      // The checked-out client lost its server without taking the process with it.
      await expect(held.query("select 1")).rejects.toSatisfy(isConnectionError);
      held.release(true);

      // Both kinds of dropped connection went to the hook, named by the pool.
      expect(reported).toContainEqual(
        expect.objectContaining({
          pool: "agent-ledger-web",
          state: "in use",
          message: "connection lost",
        }),
      );
      expect(reported).toContainEqual(expect.objectContaining({ state: "idle" }));
      reported.length = 0;

      const { rows } = await pool.query<{ ok: number }>("select 1 as ok");
      expect(rows).toEqual([{ ok: 1 }]);
      const inTx = await withTransaction(pool, async (c) => (await c.query("select 2 as n")).rows);
      expect(inTx).toEqual([{ n: 2 }]);
    },
  );
});

describe("isConnectionError", () => {
  const pgError = (code: string, message = "x") => Object.assign(new Error(message), { code });
  it("knows an outage from an answer", () => {
    for (const code of [
      "57P01",
      "57P02",
      "57P03",
      "08006",
      "08001",
      "ECONNREFUSED",
      "ECONNRESET",
      "EPIPE",
    ]) {
      expect(isConnectionError(pgError(code)), code).toBe(true);
    }
    expect(isConnectionError(new Error("Connection terminated unexpectedly"))).toBe(true);
    for (const code of ["23505", "40001", "22009", "42P01"]) {
      expect(isConnectionError(pgError(code)), code).toBe(false);
    }
    expect(isConnectionError(new Error("lost the lease on task x"))).toBe(false);
    expect(isConnectionError("57P01")).toBe(false);
  });
});

describe("retryOnConnectionError", () => {
  it("retries an outage with capped backoff, and never an answer", async () => {
    let tries = 0;
    const result = await retryOnConnectionError(
      async () => {
        tries++;
        if (tries < 4) throw Object.assign(new Error("refused"), { code: "ECONNREFUSED" });
        return "ok";
      },
      { backoff: { initialMs: 1, maxMs: 4 } },
    );
    expect([result, tries]).toEqual(["ok", 4]);

    let answered = 0;
    await expect(
      retryOnConnectionError(async () => {
        answered++;
        throw Object.assign(new Error("duplicate key"), { code: "23505" });
      }),
    ).rejects.toThrow("duplicate key");
    expect(answered).toBe(1);
  });

  it("jitters within [base/2, base] and stops growing at the cap", () => {
    const b = { initialMs: 100, maxMs: 1_000 };
    expect([0, 1, 2, 3, 10].map((n) => backoffDelay(n, b, () => 0))).toEqual([
      50, 100, 200, 400, 500,
    ]);
    expect([0, 1, 2, 3, 10].map((n) => backoffDelay(n, b, () => 1))).toEqual([
      100, 200, 400, 800, 1_000,
    ]);
  });
});
