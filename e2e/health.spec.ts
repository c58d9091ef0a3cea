import { readFileSync } from "node:fs";
import { expect, test } from "./fixtures";
import { ROOT, readE2eDatabase } from "./settings";

type Journal = { entries: { tag: string; when: number }[] };

test("/api/health reports the database up and every migration applied", async ({ request, db }) => {
  const journal = JSON.parse(
    readFileSync(`${ROOT}/db/migrations/meta/_journal.json`, "utf8"),
  ) as Journal;
  const { rows } = await db.query<{ n: number }>(
    "select count(*)::int as n from drizzle.__drizzle_migrations",
  );

  const response = await request.get("/api/health");
  expect(response.status()).toBe(200);
  expect(response.headers()["cache-control"]).toContain("no-store");
  expect(response.headers()["x-powered-by"]).toBeUndefined();
  const body = await response.json();
  expect(body).toEqual({
    status: "ok",
    database: "up",
    migrations: {
      applied: rows[0]?.n,
      expected: journal.entries.length,
      latest: journal.entries.at(-1)?.tag,
    },
    // The suite's DATABASE_READ_URL is a read-only role on the same database (e2e/server.ts):
    // up, and not a standby, so there is no replay lag to report.
    ...(readE2eDatabase().readerUrl
      ? { replica: { database: "up", standby: false, replayLagSeconds: null } }
      : {}),
  });
  expect(body.migrations.applied).toBe(body.migrations.expected);
});
