// Our side of the comparison: an agent whose run is one intent-keyed tool call, so each task is
// the full bookkeeping around one effect. Its own file so the RSS child loads only this, the
// runtime and pg, not the other systems' libraries.
import type pg from "pg";
import { z } from "zod";
import { defineAgent, defineTool } from "../../../lib/sdk/define";

/** (a) nothing, (b) one INSERT into a table with a unique key. */
export type HandlerName = "noop" | "insert";

export async function sinkInsert(pool: pg.Pool, n: number): Promise<void> {
  await pool.query("insert into bench_sink (n) values ($1)", [n]);
}

export function benchAgent(handler: HandlerName, sink?: pg.Pool) {
  const work = defineTool({
    name: "work",
    input: z.object({ n: z.number() }),
    intent: (a) => ({ n: a.n }),
    execute: async (a) => {
      if (handler === "insert" && sink) await sinkInsert(sink, a.n);
      return { done: a.n };
    },
  });
  return defineAgent({
    name: "bench",
    input: z.object({ n: z.number() }),
    tools: { work },
    run: async (ctx, input) => ctx.tool("work", { n: input.n }),
  });
}
