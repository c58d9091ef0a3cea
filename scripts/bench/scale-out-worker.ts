// Child process for the scale-out bench: one of several worker processes on one database, running
// the comparison's agent (one intent-keyed INSERT per task). It connects, says "ready", and starts
// its worker only on "go" on stdin, so every process starts at the same moment and none is timed
// loading modules. On "stop" it stops and prints one JSON line: attempts run and CPU used
// (scale-out-child.ts, the protocol the peer's processes share).
import { createPool } from "../../db/client";
import { startWorker } from "../../worker/runtime/worker";
import { benchAgent } from "./compare/agent";
import { serveScaleOutChild } from "./scale-out-child";

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
let worker: Awaited<ReturnType<typeof startWorker>> | undefined;
await serveScaleOutChild({
  start: async () => {
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
  },
  stop: async () => {
    await worker?.stop(5_000);
  },
  close: async () => {
    await Promise.all([pool.end(), sink.end()]);
  },
  attempts: () => attempts,
});
