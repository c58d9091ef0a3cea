// The library as the user's own TypeScript code imports it: one entry point, "agent-ledger".
// Type-checked with the project (npm run typecheck) and run by lib/sdk/entry.test.ts.

import { defineAgent, defineTool, enqueue } from "agent-ledger";
import pg from "pg";
import { z } from "zod";

export const notify = defineTool({
  name: "notify",
  input: z.object({ channel: z.string(), text: z.string() }),
  intent: (a) => ({ channel: a.channel }),
  execute: async (a, { idempotencyKey }) => ({ posted: a.channel, key: idempotencyKey }),
});

export const announcer = defineAgent({
  name: "announcer",
  input: z.object({ channel: z.string().min(1), text: z.string().max(500) }),
  tools: { notify },
  run: async (ctx, input) => ctx.tool("notify", { channel: input.channel, text: input.text }),
});

/** Enqueue from any process that can reach the database. */
export async function announce(databaseUrl: string, text: string) {
  const pool = new pg.Pool({ connectionString: databaseUrl });
  try {
    return await enqueue(pool, {
      agent: announcer, // an Agent (not just its name): the input is checked here first
      input: { channel: "#ops", text },
      key: `announce:${text}`, // the same key returns the first task instead of a second one
    });
  } finally {
    await pool.end();
  }
}
