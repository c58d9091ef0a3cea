// The harness's dead-man's switch, a process of its own in its own session. The harness tells
// it on stdin what it starts and what it has stopped again. When stdin closes (the harness
// ended, however: even SIGKILL closes the pipe) the watchdog stops whatever is still
// registered: process groups, the postmaster and its data directory, databases on a shared
// server. After a clean run nothing is left registered and it just exits.
import { rmSync } from "node:fs";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import { isAlive } from "../../db/embedded";
import { dropDatabase } from "../../db/provision";
import { type WatchdogMessage, watchdogMessageSchema } from "./watchdog-protocol";

const groups = new Set<number>();
let postmaster: { pid: number; dir: string } | null = null;
const databases: { superUrl: string; name: string }[] = [];
const scratch = new Set<string>();

// A terminal's Ctrl-C or hang-up is for the harness; the watchdog outlives it on purpose.
for (const signal of ["SIGINT", "SIGHUP", "SIGTERM"] as const) process.on(signal, () => {});

function apply(message: WatchdogMessage): void {
  if ("group" in message) groups.add(message.group);
  else if ("forget" in message) groups.delete(message.forget);
  else if ("postmaster" in message) postmaster = { pid: message.postmaster, dir: message.dir };
  else if ("database" in message) databases.push(message.database);
  else if ("scratch" in message) scratch.add(message.scratch);
  else if ("keep" in message) scratch.delete(message.keep);
  else {
    postmaster = null;
    databases.length = 0;
  }
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}

async function stopPostmaster(pid: number): Promise<void> {
  for (const [signal, waitMs] of [
    ["SIGINT", 10_000],
    ["SIGKILL", 5_000],
  ] as const) {
    if (!isAlive(pid)) return;
    try {
      process.kill(pid, signal);
    } catch {
      return;
    }
    const until = Date.now() + waitMs;
    while (isAlive(pid) && Date.now() < until) await sleep(50);
  }
}

async function cleanUp(): Promise<void> {
  for (const pid of groups) killGroup(pid, "SIGKILL");
  if (postmaster) {
    // The harness's own cluster goes whole, databases and all.
    await stopPostmaster(postmaster.pid);
    rmSync(postmaster.dir, { recursive: true, force: true });
  } else {
    // A server the harness did not start (TEST_DATABASE_URL): only its databases go.
    for (const db of databases) await dropDatabase(db.superUrl, db.name).catch(() => undefined);
  }
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
}

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    continue;
  }
  const parsed = watchdogMessageSchema.safeParse(json);
  if (parsed.success) apply(parsed.data);
}
await cleanUp();
process.exit(0);
