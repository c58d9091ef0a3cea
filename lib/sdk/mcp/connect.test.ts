// connectMcp's checks at connect, against the fixture server over stdio: configuration for
// tools the server lacks or `only` leaves out, malformed options, naming, and the input schema.
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { connectMcp } from "./index";

const fixture = fileURLToPath(new URL("./fixtures/stdio-server.mjs", import.meta.url));
const log = "/dev/null";

describe("connectMcp configuration", () => {
  // Nothing here calls a tool, so the calls log goes nowhere.
  const transport = { command: process.execPath, args: [fixture], env: { TICKETS_LOG: log } };

  it("refuses configuration for a tool the server does not have, naming what it has", async () => {
    await expect(
      connectMcp({ name: "tickets", transport, tools: { delete_ticket: { money: true } } }),
    ).rejects.toThrow(
      /configures "delete_ticket" but the server has no such tool; it has "create_ticket", "find_ticket", "close_ticket", "crash"/,
    );
    await expect(connectMcp({ name: "tickets", transport, only: ["nope"] })).rejects.toThrow(
      /`only` names "nope"/,
    );
    await expect(
      connectMcp({
        name: "tickets",
        transport,
        only: ["create_ticket"],
        tools: { find_ticket: { as: "lookup" } },
      }),
    ).rejects.toThrow(/configures "find_ticket" but `only` leaves it out/);
  });

  it("refuses malformed options before starting anything", async () => {
    await expect(
      connectMcp({ name: "my tickets", transport: { url: "ftp://example.com" } }),
    ).rejects.toThrow(/invalid options[\s\S]*name[\s\S]*transport/);
  });

  it("gives a tool the rate limit configured for it, and refuses one out of range", async () => {
    const mcp = await connectMcp({
      name: "tickets",
      transport,
      only: ["create_ticket"],
      tools: {
        create_ticket: {
          rateLimit: { limit: 5, periodMs: 1_000, key: (args) => String(args.priority) },
        },
      },
    });
    try {
      const limit = mcp.tools.tickets_create_ticket?.rateLimit;
      expect(limit).toMatchObject({ limit: 5, periodMs: 1_000 });
      expect(limit?.key?.({ title: "x", priority: "high" })).toBe("high");
    } finally {
      await mcp.close();
    }
    await expect(
      connectMcp({
        name: "tickets",
        transport,
        tools: { create_ticket: { rateLimit: { limit: 0, periodMs: 1_000 } } },
      }),
    ).rejects.toThrow(/rateLimit/);
  });

  it("names tools <server>_<tool> in snake_case unless `as` says, and `only` picks", async () => {
    const mcp = await connectMcp({
      name: "Help-Desk",
      transport,
      only: ["create_ticket", "find_ticket"],
      tools: { find_ticket: { as: "lookup_ticket" } },
    });
    try {
      expect(Object.keys(mcp.tools).sort()).toEqual(["help_desk_create_ticket", "lookup_ticket"]);
      expect(mcp.server).toMatchObject({
        name: "Help-Desk",
        transport: "stdio",
        info: { name: "tickets", version: "1.0.0" },
        tools: ["create_ticket", "find_ticket", "close_ticket", "crash"],
      });
      const input = mcp.tools.help_desk_create_ticket?.input;
      expect(input?.safeParse({ title: "" }).success).toBe(false);
      expect(input?.safeParse({ title: "x", priority: "urgent" }).success).toBe(false);
      expect(input?.safeParse({ title: "x" }).success).toBe(true);
      // A model offered the tool sees the server's schema, whichever side it converts.
      for (const io of ["input", "output"] as const) {
        expect(input && z.toJSONSchema(input, { io })).toMatchObject({
          type: "object",
          properties: { title: { type: "string", minLength: 1 } },
          required: ["title"],
        });
      }
    } finally {
      await mcp.close();
    }
  });
});
