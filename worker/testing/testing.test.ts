// agent-ledger/testing as a team's test uses it: a throwaway database on the test server, one
// task run in-process, and the crash harness killing real worker processes at fault points.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { z } from "zod";
import { crashTest, createTestDatabase, runTask } from "../../entry/testing";
import { defineAgent, defineTool } from "../../lib/sdk/define";

const serverUrl = inject("testCluster").superUrl;
const db = await createTestDatabase({ serverUrl });
afterAll(() => db.drop());

describe("createTestDatabase + runTask", () => {
  it("runs one task on a migrated throwaway database and reads back its effects and ledger", async () => {
    const ping = defineTool({
      name: "ping",
      input: z.object({ host: z.string() }),
      intent: (a) => a,
      execute: async (a) => ({ pong: a.host }),
    });
    const agent = defineAgent({
      name: "pinger",
      input: z.object({ host: z.string() }),
      tools: { ping },
      run: (ctx, input) => ctx.tool("ping", { host: input.host }),
    });
    const report = await runTask(db, { agent, input: { host: "db-1" } });
    expect(report.status).toBe("succeeded");
    expect(report.result).toEqual({ pong: "db-1" });
    expect(report.effects).toMatchObject([{ tool: "ping", status: "succeeded" }]);
    expect(report.ledger.map((e) => e.kind)).toContain("effect.succeeded");
  });

  it("says what is missing without a server URL", async () => {
    const saved = { t: process.env.TEST_DATABASE_URL, d: process.env.DATABASE_URL };
    delete process.env.TEST_DATABASE_URL;
    delete process.env.DATABASE_URL;
    try {
      await expect(createTestDatabase()).rejects.toThrow(
        /give serverUrl, or set TEST_DATABASE_URL/,
      );
    } finally {
      if (saved.t !== undefined) process.env.TEST_DATABASE_URL = saved.t;
      if (saved.d !== undefined) process.env.DATABASE_URL = saved.d;
    }
  });
});

describe("crashTest", () => {
  it("kills workers at the fault points and the receiver performs each intent once", async () => {
    const performed = new Map<string, string>();
    let requests = 0;
    const receiver = createServer((req, res) => {
      let body = "";
      req.on("data", (c) => {
        body += c;
      });
      req.on("end", () => {
        requests++;
        const key = String(req.headers["idempotency-key"]);
        const { parcel } = JSON.parse(body) as { parcel: string };
        if (!performed.has(key)) performed.set(key, parcel);
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ delivered: performed.get(key) }));
      });
    });
    await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
    const port = (receiver.address() as AddressInfo).port;
    try {
      const result = await crashTest(db, {
        agentsModule: path.join(import.meta.dirname, "fixtures", "crash-agents.ts"),
        tasks: Array.from({ length: 6 }, (_, i) => ({
          agent: "courier",
          input: { parcel: `p${i}` },
        })),
        // A worker survives an effect with p = 0.25: the 12 effects cannot all settle before 3
        // armed workers died (at 0.2 / 0.3 one run in a few hundred did, with 2 kills).
        faultPoints: { "effect.started": 0.5, "effect.returned": 0.5 },
        kills: 3,
        // Under the test's own 60 s, so a stuck run fails with the harness's report.
        timeoutMs: 50_000,
        env: { RECEIVER_URL: `http://127.0.0.1:${port}/deliver` },
      });
      expect(result.kills).toBeGreaterThanOrEqual(3);
      expect(result.tasks.map((t) => t.status)).toEqual(Array(6).fill("succeeded"));
      // 12 intents, each performed once, whatever was resent after a kill.
      expect(performed.size).toBe(12);
      expect(new Set(performed.values()).size).toBe(12);
      expect(requests).toBeGreaterThanOrEqual(12);
    } finally {
      receiver.close();
    }
  });

  it("refuses bad options before enqueueing anything", async () => {
    await expect(
      crashTest(db, { agentsModule: "x", tasks: [], faultPoints: { "no.such": 1 } as never }),
    ).rejects.toThrow(/at least one task[\s\S]*faultPoints/);
  });
});
