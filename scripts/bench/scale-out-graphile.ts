// Child process for the scale-out bench's peer: one graphile-worker process of several on one
// database, running the comparison's job (one INSERT into the sink) with the compare section's
// settings (compare/graphile.ts), under the same protocol as ours (scale-out-child.ts).
import { run } from "graphile-worker";
import { sinkInsert } from "./compare/agent";
import { graphilePool, graphileRunOptions } from "./compare/graphile";
import { serveScaleOutChild } from "./scale-out-child";

const [url, concurrencyArg] = process.argv.slice(2);
if (!url || !concurrencyArg) throw new Error("usage: scale-out-graphile <url> <concurrency>");
const concurrency = Number(concurrencyArg);
const pool = graphilePool(url, concurrency + 2);
// Each job in flight holds at most one sink connection.
const sink = graphilePool(url, concurrency);
await Promise.all([pool.query("select 1"), sink.query("select 1")]);

let attempts = 0;
let runner: Awaited<ReturnType<typeof run>> | undefined;
await serveScaleOutChild({
  start: async () => {
    runner = await run(
      graphileRunOptions(pool, concurrency, async (n) => {
        await sinkInsert(sink, n);
        attempts++;
      }),
    );
  },
  stop: async () => {
    await runner?.stop();
  },
  close: async () => {
    await Promise.all([pool.end(), sink.end()]);
  },
  attempts: () => attempts,
});
