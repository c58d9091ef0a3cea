// An agent calling an MCP server's tools over streamable HTTP (an in-process server on port 0),
// end to end on a real worker and database: the key reaches the server, a dropped session is
// replaced within the same call without acting twice, and a server that is down is "not performed".
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { setUpTestDatabase } from "../../../db/testing/database";
import { stageLostClaim } from "../../../worker/runtime/stage-unknown-outcome";
import { runtimeTestKit } from "../../../worker/runtime/test-support";
import { workerForFile } from "../../../worker/runtime/test-worker";
import { operator } from "../../domain/access";
import { deriveEffectKey } from "../../domain/hash";
import { approveTask } from "../../server/commands/approve-task";
import { defineAgent } from "../define";
import { EffectNotPerformedError } from "../errors";
import { McpConnection } from "./connection";
// @ts-expect-error: a plain .mjs fixture, run by plain node, without type declarations
import { startHttpTicketServer } from "./fixtures/http-server.mjs";
// @ts-expect-error: a plain .mjs fixture, run by plain node, without type declarations
import { readCalls } from "./fixtures/tickets.mjs";
import { connectMcp } from "./index";

type HttpTicketServer = {
  url: string;
  sessions(): number;
  dropSessions(): Promise<void>;
  close(): Promise<void>;
};

const t = await setUpTestDatabase("mcp_http");
const kit = runtimeTestKit(t.pool);
const log = path.join(mkdtempSync(path.join(tmpdir(), "mcp-http-")), "calls.jsonl");
const server: HttpTicketServer = await startHttpTicketServer({ log });
const calls = (): { tool: string; key: string | null }[] => readCalls(log);

const tickets = await connectMcp({
  name: "tickets",
  transport: { url: server.url, headers: { authorization: "Bearer test" } },
  only: ["create_ticket"],
  tools: {
    create_ticket: {
      providerIdempotent: true,
      requiresApproval: (args) => args.priority === "high",
    },
  },
});
afterAll(async () => {
  await tickets.close();
  await server.close();
});

const ticketer = defineAgent({
  name: "http-ticketer",
  input: z.object({ title: z.string(), priority: z.enum(["normal", "high"]).optional() }),
  tools: tickets.tools,
  run: (ctx, input) => ctx.tool("tickets_create_ticket", input),
});

workerForFile(t.pool, {
  agents: [ticketer],
  concurrency: 2,
  policy: { maxAttempts: 2, backoffMs: 10, attemptTimeoutMs: 10_000 },
});

describe("MCP tools over streamable HTTP", () => {
  it("opens a ticket as an effect, the key in _meta, published with its HTTP source", async () => {
    const taskId = await kit.enqueue("http-ticketer", { title: "VPN down" });
    const done = await kit.settle(taskId);
    expect(done.status).toBe("succeeded");
    expect(done.result).toMatchObject({ id: 1, title: "VPN down", priority: "normal" });

    const key = deriveEffectKey(taskId, "tickets_create_ticket", {
      title: "VPN down",
      priority: "normal",
    });
    expect((await kit.effects(taskId))[0]).toMatchObject({ key, status: "succeeded" });
    expect(calls().filter((c) => c.key === key)).toHaveLength(1);

    const { rows } = await t.pool.query(
      "select tools from agent_catalog where name = 'http-ticketer'",
    );
    expect(rows[0]?.tools).toEqual([
      expect.objectContaining({
        name: "tickets_create_ticket",
        providerIdempotent: true,
        source: { kind: "mcp", server: "tickets", tool: "create_ticket", transport: "http" },
      }),
    ]);
  });

  it("starts a new session when the server forgot the old one, acting once", async () => {
    await server.dropSessions();
    expect(server.sessions()).toBe(0);
    const before = calls().length;

    const taskId = await kit.enqueue("http-ticketer", { title: "After the restart" });
    const done = await kit.settle(taskId);
    expect(done).toMatchObject({ status: "succeeded", attempts: 1 });
    expect(server.sessions()).toBe(1);
    expect(calls().slice(before)).toHaveLength(1);
    expect(await kit.kinds(taskId)).not.toContain("effect.failed");
  });

  it("resends an unknown outcome with the same key, and the server that honours it acts once", async () => {
    const taskId = await kit.enqueue("http-ticketer", { title: "Lost answer" }, { held: true });
    const args = { title: "Lost answer", priority: "normal" };
    const key = await stageLostClaim(t.pool, {
      taskId,
      tool: "tickets_create_ticket",
      args,
      intent: args,
    });
    // The crashed attempt's call reached the server; its answer never came back.
    const create = tickets.tools.tickets_create_ticket;
    if (!create) throw new Error("the server lists create_ticket");
    const first = await create.execute(args, {
      idempotencyKey: key,
      signal: new AbortController().signal,
    });
    expect(first).toMatchObject({ duplicate: false });

    await kit.release(taskId);
    const done = await kit.settle(taskId);
    expect(done.status).toBe("succeeded");
    expect(done.result).toMatchObject({ duplicate: true, title: "Lost answer" });
    const unknown = (await kit.entries(taskId)).find((e) => e.kind === "effect.outcome_unknown");
    expect(unknown?.data).toMatchObject({ action: "resend" });
    expect(calls().filter((c) => c.key === key)).toHaveLength(2);
  });

  it("asks a person before a gated MCP call, and calls once after the yes", async () => {
    const taskId = await kit.enqueue("http-ticketer", { title: "Outage", priority: "high" });
    const parked = await kit.waitFor(taskId, (r) => r.status === "awaiting_approval");
    const key = deriveEffectKey(taskId, "tickets_create_ticket", {
      title: "Outage",
      priority: "high",
    });
    expect(calls().filter((c) => c.key === key)).toHaveLength(0);

    const approved = await approveTask(t.pool, operator("rita@example.com"), {
      taskId,
      version: parked.version,
    });
    expect(approved.ok).toBe(true);
    expect((await kit.settle(taskId)).status).toBe("succeeded");
    expect(calls().filter((c) => c.key === key)).toHaveLength(1);
  });

  it("says 'not performed' when the server cannot be reached at all", async () => {
    const gone: HttpTicketServer = await startHttpTicketServer({ log });
    await gone.close();
    await expect(connectMcp({ name: "gone", transport: { url: gone.url } })).rejects.toThrow(
      /connectMcp gone: could not list the tools of http:\/\/127\.0\.0\.1:\d+\/mcp: fetch failed/,
    );
    // A call that finds no connection connects first; refused, nothing was sent.
    const conn = new McpConnection("gone", { url: gone.url }, 5_000);
    const call = conn.callTool("create_ticket", { title: "Nobody home" }, { key: "k-gone" });
    await expect(call).rejects.toBeInstanceOf(EffectNotPerformedError);
    await expect(call).rejects.toThrow(/MCP gone.create_ticket: could not connect/);
    await conn.close();
  });
});
