// An agent calling an MCP server's tools over stdio, end to end on a real worker and database:
// the key travels in _meta, the catalog says where the tool comes from, a dead child is
// replaced on the next call, a retry or replay never calls the tool twice for one intent, and a
// call the child died in goes through the unknown-outcome path.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { setUpTestDatabase } from "../../../db/testing/database";
import { stageLostClaim } from "../../../worker/runtime/stage-unknown-outcome";
import { runtimeTestKit } from "../../../worker/runtime/test-support";
import { workerForFile } from "../../../worker/runtime/test-worker";
import { operator } from "../../domain/access";
import { deriveEffectKey } from "../../domain/hash";
import type { JsonValue } from "../../domain/json";
import { replayTask } from "../../server/commands/replay-task";
import { defineAgent } from "../define";
import { NonRetryableError } from "../errors";
// @ts-expect-error: a plain .mjs fixture, run by plain node, without type declarations
import { readCalls } from "./fixtures/tickets.mjs";
import { connectMcp, type McpTool, type McpToolNames } from "./index";

const t = await setUpTestDatabase("mcp_stdio");
const kit = runtimeTestKit(t.pool);
const log = path.join(mkdtempSync(path.join(tmpdir(), "mcp-stdio-")), "calls.jsonl");
const fixture = fileURLToPath(new URL("./fixtures/stdio-server.mjs", import.meta.url));

type Call = { tool: string; key: string | null; args: Record<string, unknown>; pid: number };
const calls = (): Call[] => readCalls(log);

const tickets = await connectMcp({
  name: "tickets",
  transport: { command: process.execPath, args: [fixture], env: { TICKETS_LOG: log } },
  tools: {
    // The title says what the ticket is; the priority is how it is filed.
    create_ticket: {
      intent: (args) => ({ title: args.title ?? null }),
      // The tracker can say which ticket a key created: an unknown outcome is checked there.
      reconcile: async (key, _args, { callTool }) => {
        const found = await callTool("find_ticket", { key });
        return isObject(found) && found.found === true
          ? { happened: true, result: found }
          : { happened: false };
      },
    },
    close_ticket: { onToolError: "permanent" },
  },
});
// The same server without a word on tool errors: they are retried with the same key.
const desk = await connectMcp({
  name: "desk",
  transport: { command: process.execPath, args: [fixture], env: { TICKETS_LOG: log } },
  only: ["close_ticket"],
});
afterAll(() => Promise.all([tickets.close(), desk.close()]));

/** Titles whose task fails after opening its ticket, until the test lets it succeed. */
const failAfter = new Set<string>();
const ticketer = defineAgent({
  name: "ticketer",
  input: z.object({ title: z.string(), priority: z.enum(["low", "normal", "high"]).optional() }),
  tools: tickets.tools,
  run: async (ctx, input) => {
    const ticket = await ctx.tool("tickets_create_ticket", input);
    if (failAfter.has(input.title)) throw new NonRetryableError("the agent failed after the call");
    return ticket;
  },
});
const closer = defineAgent({
  name: "closer",
  input: z.object({ id: z.number() }),
  tools: tickets.tools,
  run: (ctx, input) => ctx.tool("tickets_close_ticket", input),
});
const retrier = defineAgent({
  name: "retrier",
  input: z.object({ id: z.number() }),
  tools: desk.tools,
  run: (ctx, input) => ctx.tool("desk_close_ticket", input),
});
const crasher = defineAgent({
  name: "crasher",
  input: z.object({}),
  tools: tickets.tools,
  run: (ctx) => ctx.tool("tickets_crash", {}),
});

workerForFile(t.pool, {
  agents: [ticketer, closer, retrier, crasher],
  concurrency: 2,
  policy: { maxAttempts: 3, backoffMs: 10, attemptTimeoutMs: 10_000 },
});

const isObject = (v: JsonValue): v is { [key: string]: JsonValue } =>
  typeof v === "object" && v !== null && !Array.isArray(v);

const keyOf = (taskId: string, title: string) =>
  deriveEffectKey(taskId, "tickets_create_ticket", { title });

async function exited(pid: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`process ${pid} never exited`);
}

describe("MCP tools over stdio", () => {
  it("types the names of the tools `only` lists (or their `as`); without it the server decides", () => {
    expect(Object.keys(desk.tools)).toEqual(["desk_close_ticket"]);
    expectTypeOf(desk.tools).toEqualTypeOf<Record<"desk_close_ticket", McpTool>>();
    expectTypeOf(tickets.tools).toEqualTypeOf<Record<string, McpTool>>();
    expectTypeOf<
      McpToolNames<"desk", { close_ticket: { as: "close" } }, ["close_ticket", "find_ticket"]>
    >().toEqualTypeOf<"close" | "desk_find_ticket">();
    // A name snakeCase would respell is typed as a string, not guessed at.
    expectTypeOf<McpToolNames<"help-desk", object, ["findTicket"]>>().toEqualTypeOf<string>();
  });

  it("opens a ticket as an effect: the key in _meta, the ledger and the catalog", async () => {
    const taskId = await kit.enqueue("ticketer", { title: "Printer on fire", priority: "high" });
    const done = await kit.settle(taskId);
    expect(done.status).toBe("succeeded");
    expect(done.result).toMatchObject({ id: 1, title: "Printer on fire", duplicate: false });

    const key = keyOf(taskId, "Printer on fire");
    const [effect] = await kit.effects(taskId);
    expect(effect).toMatchObject({ key, status: "succeeded" });
    expect(effect?.args).toEqual({ title: "Printer on fire", priority: "high" });
    expect(calls().filter((c) => c.key === key)).toHaveLength(1);
    expect((await kit.entries(taskId)).find((e) => e.kind === "effect.succeeded")?.key).toBe(key);

    const { rows } = await t.pool.query("select tools from agent_catalog where name = 'ticketer'");
    expect(rows[0]?.tools).toContainEqual(
      expect.objectContaining({
        name: "tickets_create_ticket",
        description: "Opens a ticket in the tracker",
        source: { kind: "mcp", server: "tickets", tool: "create_ticket", transport: "stdio" },
      }),
    );
  });

  it("starts a new child on the next call after the child died between calls", async () => {
    const first = await kit.settle(await kit.enqueue("ticketer", { title: "Before the kill" }));
    const pid = (first.result as { pid: number }).pid;
    process.kill(pid, "SIGKILL");
    await exited(pid);

    const taskId = await kit.enqueue("ticketer", { title: "After the kill" });
    const after = await kit.settle(taskId);
    expect(after.status).toBe("succeeded");
    expect((after.result as { pid: number }).pid).not.toBe(pid);
    expect(await kit.kinds(taskId)).not.toContain("effect.failed");
  });

  it("neither a retry nor a replay calls the tool twice for one intent", async () => {
    failAfter.add("Once only");
    const taskId = await kit.enqueue("ticketer", { title: "Once only" });
    const dead = await kit.settle(taskId);
    expect(dead).toMatchObject({ status: "dead", dead_reason: "non_retryable" });
    failAfter.delete("Once only");

    const replayed = await replayTask(t.pool, operator("rita@example.com"), {
      taskId,
      version: dead.version,
      fromStep: 1,
    });
    expect(replayed.ok).toBe(true);
    expect((await kit.settle(taskId)).status).toBe("succeeded");
    expect(await kit.kinds(taskId)).toContain("effect.deduplicated");
    expect(calls().filter((c) => c.key === keyOf(taskId, "Once only"))).toHaveLength(1);
  });

  it("checks an unknown outcome with the tracker: found is recorded, not found acts", async () => {
    const stage = async (title: string) => {
      const taskId = await kit.enqueue("ticketer", { title }, { held: true });
      const args = { title, priority: "normal" };
      const key = await stageLostClaim(t.pool, {
        taskId,
        tool: "tickets_create_ticket",
        args,
        intent: { title },
      });
      return { taskId, key, args };
    };
    const reached = await stage("Reached the tracker");
    const create = tickets.tools.tickets_create_ticket;
    if (!create) throw new Error("the server lists create_ticket");
    await create.execute(reached.args, {
      idempotencyKey: reached.key,
      signal: new AbortController().signal,
    });
    const lost = await stage("Never reached it");

    for (const staged of [reached, lost]) await kit.release(staged.taskId);
    const [found, acted] = await Promise.all([kit.settle(reached.taskId), kit.settle(lost.taskId)]);
    expect(found).toMatchObject({ status: "succeeded", result: { found: true } });
    expect(acted).toMatchObject({ status: "succeeded", result: { duplicate: false } });
    expect(calls().filter((c) => c.key === reached.key)).toHaveLength(1);
    expect(calls().filter((c) => c.key === lost.key)).toHaveLength(1);
    const checks = calls().filter((c) => c.tool === "find_ticket");
    expect(checks.map((c) => c.args.key)).toEqual(expect.arrayContaining([reached.key, lost.key]));
  });

  it("dead-letters a tool error the team marks permanent, after one call", async () => {
    const taskId = await kit.enqueue("closer", { id: 9 });
    const dead = await kit.settle(taskId);
    expect(dead).toMatchObject({ status: "dead", dead_reason: "non_retryable" });
    expect(dead.last_error?.message).toContain("ticket 9 does not exist");
    expect(calls().filter((c) => c.tool === "close_ticket")).toHaveLength(1);
    expect((await kit.effects(taskId))[0]?.status).toBe("failed");
  });

  it("retries a tool error with the same key by default, until the attempts run out", async () => {
    const taskId = await kit.enqueue("retrier", { id: 7 });
    const dead = await kit.settle(taskId);
    expect(dead).toMatchObject({ status: "dead", dead_reason: "exhausted", attempts: 3 });
    const key = deriveEffectKey(taskId, "desk_close_ticket", { id: 7 });
    const sent = calls().filter((c) => c.tool === "close_ticket" && c.key === key);
    expect(sent).toHaveLength(3);
    const failed = (await kit.entries(taskId)).filter((e) => e.kind === "effect.failed");
    expect(failed.map((e) => e.data)).toEqual(
      Array(3).fill(
        expect.objectContaining({
          performed: "no",
          error: expect.objectContaining({ name: "McpToolError" }),
        }),
      ),
    );
  });

  it("takes a call the child died in as outcome unknown, and a person decides", async () => {
    const taskId = await kit.enqueue("crasher", {});
    const dead = await kit.settle(taskId);
    expect(dead).toMatchObject({ status: "dead", dead_reason: "outcome_unknown" });
    const failed = (await kit.entries(taskId)).find((e) => e.kind === "effect.failed");
    expect(failed?.data).toMatchObject({
      performed: "unknown",
      error: { name: "McpOutcomeUnknownError" },
    });
    // The crash was delivered once: the next attempt did not resend it.
    expect(calls().filter((c) => c.tool === "crash")).toHaveLength(1);
  });
});
