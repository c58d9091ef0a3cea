// Child process for the RSS figure: a worker alone in its own process (no harness, no other
// system's client), running the tasks already queued at the given concurrency. Prints one JSON
// line: RSS with the modules loaded, before the worker starts, the peak RSS while it ran, RSS once stopped and settled, and how many tasks it finished.
import { createPool } from "../../../db/client";
import { startWorker } from "../../../worker/runtime/worker";
import { benchAgent } from "./agent";

const [url, concurrencyArg, tasksArg] = process.argv.slice(2);
if (!url || !concurrencyArg || !tasksArg)
  throw new Error("usage: rss-worker <url> <concurrency> <tasks>");
const concurrency = Number(concurrencyArg);
const tasks = Number(tasksArg);
const mb = () => process.memoryUsage().rss / 1024 / 1024;

const loaded = mb();
const pool = createPool(url, { max: concurrency + 4 });
let done = 0;
let peak = mb();
const sampler = setInterval(() => {
  peak = Math.max(peak, mb());
}, 20);
const worker = await startWorker({
  pool,
  agents: [benchAgent("noop")],
  concurrency,
  pollMs: 50,
  log: () => {},
  onAttempt: () => {
    done++;
  },
});
while (done < tasks) await new Promise((r) => setTimeout(r, 20));
await worker.stop(2_000);
// Settled: what the process holds once the burst is over.
await new Promise((r) => setTimeout(r, 200));
const idle = mb();
clearInterval(sampler);
await pool.end();
console.log(
  JSON.stringify({
    loadedRssMb: Number(loaded.toFixed(1)),
    peakRssMb: Number(peak.toFixed(1)),
    settledRssMb: Number(idle.toFixed(1)),
    done,
  }),
);
