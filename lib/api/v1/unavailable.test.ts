// While the database is down, the API answers 503 `unavailable` with Retry-After (not a 500),
// and answers normally again once it is back: through the real route handler, on a cluster of
// this file's own that it stops and starts.
import { afterAll, describe, expect, it } from "vitest";
import { createPool } from "../../../db/client";
import { startRestartableCluster } from "../../../db/testing/restartable-cluster";
import { operator } from "../../domain/access";
import { createApiToken } from "../../server/commands/api-tokens";

const cluster = await startRestartableCluster();
process.env.DATABASE_URL = cluster.appUrl;
const tasksRoute = await import("../../../app/api/v1/tasks/route");
const setup = createPool(cluster.appUrl, { max: 1 });
afterAll(async () => {
  await setup.end();
  await cluster.destroy();
});

const created = await createApiToken(setup, operator("test"), {
  name: "reader",
  scopes: ["tasks:read"],
});
if (!created.ok) throw new Error(created.message);
const bearer = created.value.token;
const list = () =>
  tasksRoute.GET(
    new Request("http://localhost/api/v1/tasks", {
      headers: { authorization: `Bearer ${bearer}` },
    }),
    { params: Promise.resolve({}) },
  );

describe("the API while its database is down", () => {
  it("answers 503 with Retry-After, then 200 when the database is back", async () => {
    expect((await list()).status).toBe(200);
    await cluster.stopServer();
    try {
      const down = await list();
      expect(down.status).toBe(503);
      expect(down.headers.get("retry-after")).toBe("2");
      expect(down.headers.get("content-type")).toBe("application/problem+json");
      expect(await down.json()).toMatchObject({
        type: "https://agent-ledger.dev/problems/unavailable",
      });
    } finally {
      await cluster.start();
    }
    expect((await list()).status).toBe(200);
  });
});
