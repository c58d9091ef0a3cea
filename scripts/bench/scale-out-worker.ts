// Child process for the scale-out bench: one of several worker processes on one database, running
// the comparison's agent (one intent-keyed INSERT per task). It connects, says "ready", and starts
// its worker only on "go" on stdin, so every process starts at the same moment and none is timed
// loading modules. On "stop" it stops and prints one JSON line: attempts run and CPU used.
import { createInterface } from "node:readline";
import { createPool } from "../../db/client";
import { startWorker } from "../../worker/runtime/worker";
import { benchAgent } from "./compare/agent";

const [url, sinkUrl, concurrencyArg] = process.argv.slice(2);
if (!url || !sinkUrl || !concurrencyArg) {
  throw new Error("usage: scale-out-worker <url> <sink-url> <concurrency>");
}
const concurrency = Number(concurrencyArg);
const pool = createPool(url, { max: concurrency + 4, applicationName: "scale-out-worker" });
// Each attempt in flight holds at most one sink connection.
const sink = createPool(sinkUrl, { max: concurrency, applicationName: "scale-out-sink" });
await Promise.all([pool.query("select 1"), sink.query("select 1")]);

let attempts = 0;
let cpu: NodeJS.CpuUsage | undefined;
let worker: Awaited<ReturnType<typeof startWorker>> | undefined;
const lines = createInterface({ input: process.stdin });
process.stdout.write("ready\n");
for await (const line of lines) {
  if (line === "go") {
    cpu = process.cpuUsage();
    worker = await startWorker({
      pool,
      agents: [benchAgent("insert", sink)],
      concurrency,
      pollMs: 50,
      log: () => {},
      onAttempt: () => {
        attempts++;
      },
    });
  } else if (line === "stop") {
    await worker?.stop(5_000);
    const used = process.cpuUsage(cpu);
    await Promise.all([pool.end(), sink.end()]);
    process.stdout.write(
      `${JSON.stringify({ attempts, cpuMs: (used.user + used.system) / 1000 })}\n`,
    );
    lines.close();
  }
}
