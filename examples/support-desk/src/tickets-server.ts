// A small MCP server over stdio: the help desk's ticket tracker. create_ticket opens one ticket
// per idempotency key (sent by Agent Ledger in the request's _meta), so a resend after a crash
// finds the ticket it already opened. Tickets are appended to TICKETS_FILE as JSON lines.
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const file = process.env.TICKETS_FILE ?? "tickets.jsonl";
const KEY = "agent-ledger/idempotency-key";

type Ticket = { ticketId: string; orderId: string; title: string; key: string | null };
const tickets = (): Ticket[] =>
  existsSync(file)
    ? readFileSync(file, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Ticket)
    : [];

const server = new McpServer({ name: "tickets", version: "1.0.0" });
server.registerTool(
  "create_ticket",
  {
    description: "Open a support ticket for an order",
    inputSchema: { orderId: z.string(), title: z.string().min(1).max(200) },
  },
  async ({ orderId, title }, extra) => {
    const key = typeof extra._meta?.[KEY] === "string" ? (extra._meta[KEY] as string) : null;
    const existing = key ? tickets().find((t) => t.key === key) : undefined;
    const ticket = existing ?? { ticketId: `T-${tickets().length + 1}`, orderId, title, key };
    if (!existing) appendFileSync(file, `${JSON.stringify(ticket)}\n`);
    return {
      content: [{ type: "text", text: `ticket ${ticket.ticketId}` }],
      structuredContent: { ticketId: ticket.ticketId, orderId },
    };
  },
);
await server.connect(new StdioServerTransport());
process.stdin.on("end", () => process.exit(0));
