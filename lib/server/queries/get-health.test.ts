import { createServer, type Server, type Socket } from "node:net";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { createPool } from "../../../db/client";
import journal from "../../../db/migrations/meta/_journal.json";
import { setUpTestDatabase } from "../../../db/testing/database";
import { getHealth } from "./get-health";

const t = await setUpTestDatabase("health");

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
