// Child process for the scale-out bench's peer: one graphile-worker process of several on one
// database, running the comparison's job (one INSERT into the sink) with the compare section's
// settings (compare/graphile.ts). The same protocol as scale-out-worker.ts: it connects, says
// "ready", runs on "go", and on "stop" stops and prints one JSON line: jobs run and CPU used.
import { createInterface } from "node:readline";
import { run } from "graphile-worker";
import { sinkInsert } from "./compare/agent";
import { graphilePool, graphileRunOptions } from "./compare/graphile";

const [url, concurrencyArg] = process.argv.slice(2);
if (!url || !concurrencyArg) throw new Error("usage: scale-out-graphile <url> <concurrency>");
const concurrency = Number(concurrencyArg);
const pool = graphilePool(url, concurrency + 2);
// Each job in flight holds at most one sink connection.
const sink = graphilePool(url, concurrency);
await Promise.all([pool.query("select 1"), sink.query("select 1")]);

let attempts = 0;
let cpu: NodeJS.CpuUsage | undefined;
let runner: Awaited<ReturnType<typeof run>> | undefined;
const lines = createInterface({ input: process.stdin });
process.stdout.write("ready\n");
for await (const line of lines) {
  if (line === "go") {
    cpu = process.cpuUsage();
    runner = await run(
      graphileRunOptions(pool, concurrency, async (n) => {
        await sinkInsert(sink, n);
        attempts++;
      }),
    );
  } else if (line === "stop") {
    await runner?.stop();
    const used = process.cpuUsage(cpu);
    await Promise.all([pool.end(), sink.end()]);
    process.stdout.write(
      `${JSON.stringify({ attempts, cpuMs: (used.user + used.system) / 1000 })}\n`,
    );
    lines.close();
  }
}
