import { createServer, type Server, type Socket } from "node:net";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { createPool } from "../../../db/client";
import journal from "../../../db/migrations/meta/_journal.json";
import { setUpTestDatabase } from "../../../db/testing/database";
import { getHealth, getReadiness, LIVENESS } from "./get-health";

const t = await setUpTestDatabase("health");

// lib/server/db.ts and lib/env.ts read the environment once: set it before the route loads them.
const previousEnv = { ...process.env };
process.env.DATABASE_URL = t.appUrl;
const route = await import("../../../app/api/health/route");
afterAll(async () => {
  process.env = previousEnv;
  const { getPool } = await import("../db");
  await getPool().end();
});

const get = (query = "") => route.GET(new Request(`http://localhost/api/health${query}`));

describe("getHealth", () => {
  it("reports every migration applied on a migrated database", async () => {
    const health = await getHealth(t.pool);
    expect(health).toEqual({
      status: "ok",
      database: "up",
      migrations: {
        applied: journal.entries.length,
        expected: journal.entries.length,
        latest: journal.entries.at(-1)?.tag,
      },
    });
  });

  it("counts a database nobody migrated as up but not ready", async () => {
    const url = new URL(t.superUrl);
    url.pathname = "/postgres";
    const pool = createPool(url.toString(), { max: 1 });
    try {
      const health = await getHealth(pool);
      expect(health).toEqual({
        status: "migrating",
        database: "up",
        migrations: { applied: 0, expected: journal.entries.length, latest: null },
      });
    } finally {
      await pool.end();
    }
  });

  it("reports down, without the password, when nothing listens", async () => {
    const closed = await unusedPort();
    const pool = createPool(`postgres://agent:s3cret-pw@127.0.0.1:${closed}/x`, { max: 1 });
    try {
      const health = await getHealth(pool);
      expect(health.status).toBe("error");
      if (health.status !== "error") return;
      expect(health.database).toBe("down");
      expect(health.error).toMatch(/ECONNREFUSED/);
      expect(health.error).not.toContain("s3cret-pw");
      expect(health.error.length).toBeLessThanOrEqual(200);
    } finally {
      await pool.end();
    }
  });

  it("gives up after the timeout when the server never answers", async () => {
    const silent = await silentServer();
    const pool = new pg.Pool({
      connectionString: `postgres://a:b@127.0.0.1:${silent.port}/x`,
      max: 1,
      connectionTimeoutMillis: 3_000,
    });
    pool.on("error", () => undefined);
    try {
      const started = Date.now();
      const health = await getHealth(pool, 300);
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(health).toEqual({
        status: "error",
        database: "down",
        error: "database did not answer within 300 ms",
      });
    } finally {
      silent.close();
      await pool.end().catch(() => undefined);
    }
  });
});

describe("getReadiness", () => {
  it("reports down when there is no pool to get, with no credentials in the message", async () => {
    const health = await getReadiness(() => {
      throw new Error(
        "could not open postgres://agent:s3cret/pw@db:5432/x\n  or host=db password=hunter2 user=x",
      );
    });
    expect(health.status).toBe("error");
    if (health.status !== "error") return;
    expect(health.error).toBe("could not open postgres://db:5432/x or host=db password=*** user=x");
  });

  it("reads through the pool it gets", async () => {
    expect((await getReadiness(() => t.pool)).status).toBe("ok");
  });
});

describe("GET /api/health", () => {
  it("answers readiness by default, with the migration state, uncached", async () => {
    for (const response of [await get(), await get("?probe=ready&_=123")]) {
      expect(response.status).toBe(200);
      expect(response.headers.get("cache-control")).toBe("no-store");
      expect(await response.json()).toEqual({
        status: "ok",
        database: "up",
        migrations: {
          applied: journal.entries.length,
          expected: journal.entries.length,
          latest: journal.entries.at(-1)?.tag,
        },
      });
    }
  });

  it("answers liveness without the database, while readiness says 503", async () => {
    // Point the web process's pool (lib/server/db.ts keeps it on globalThis) at nothing.
    const holder = globalThis as typeof globalThis & { __agentLedgerPool?: pg.Pool };
    const real = holder.__agentLedgerPool;
    const down = createPool(`postgres://agent:s3cret-pw@127.0.0.1:${await unusedPort()}/x`, {
      max: 1,
    });
    holder.__agentLedgerPool = down;
    try {
      const live = await get("?probe=live");
      expect(live.status).toBe(200);
      expect(live.headers.get("cache-control")).toBe("no-store");
      expect(await live.json()).toEqual(LIVENESS);

      const ready = await get();
      expect(ready.status).toBe(503);
      expect(ready.headers.get("cache-control")).toBe("no-store");
      const body = await ready.text();
      expect(JSON.parse(body)).toMatchObject({ status: "error", database: "down" });
      expect(body).not.toContain("s3cret-pw");
    } finally {
      holder.__agentLedgerPool = real;
      await down.end();
    }
  });

  it("refuses an unknown probe with a problem that names the choices", async () => {
    const response = await get("?probe=startup");
    expect(response.status).toBe(400);
    expect(response.headers.get("content-type")).toBe("application/problem+json");
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(await response.json()).toEqual({
      type: "https://agent-ledger.dev/problems/invalid-request",
      title: "The request is not valid",
      status: 400,
      detail: 'probe: must be "live" or "ready"',
    });
  });
});

async function unusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Accepts TCP connections and never says a word, like a wedged server or a black-holed route. */
async function silentServer(): Promise<{ port: number; close: () => void }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  afterAll(() => server.close());
  return {
    port,
    close: () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}
