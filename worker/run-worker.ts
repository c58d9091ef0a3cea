// The worker process. Until agents and the runtime land it connects, listens for new tasks on
// LISTEN/NOTIFY and idles; it already owns the lifecycle: start, stop on SIGTERM/SIGINT, and
// stop when the `npm start` process that spawned it is gone.
import { connectClient } from "../db/client";
import { isAlive } from "../db/embedded";
import { openDatabase } from "../db/open";
import { env } from "../lib/env";
import { TASKS_CHANNEL } from "../lib/server/commands/enqueue-task";

export type WorkerOptions = { concurrency: number };

export async function runWorker(opts: WorkerOptions): Promise<void> {
  const db = await openDatabase();
  const listener = await connectClient(db.appUrl);
  await listener.query(`listen ${TASKS_CHANNEL}`);
  listener.on("notification", (msg) => {
    console.log(`[worker] task ${msg.payload} enqueued; no agent runtime yet, it stays queued`);
  });
  console.log(`[worker] ready (concurrency ${opts.concurrency}); waiting for tasks`);

  await new Promise<void>((resolve) => {
    const stop = (why: string) => {
      console.log(`[worker] stopping: ${why}`);
      clearInterval(watchdog);
      resolve();
    };
    process.once("SIGTERM", () => stop("SIGTERM"));
    process.once("SIGINT", () => stop("SIGINT"));
    const parent = env().AGENT_LEDGER_PARENT_PID;
    const watchdog = setInterval(() => {
      if (parent && !isAlive(parent)) stop(`parent process ${parent} is gone`);
    }, 1_000);
  });
  await listener.end().catch(() => undefined);
  await db.release();
}
