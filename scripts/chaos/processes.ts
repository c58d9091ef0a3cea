// Child processes of the harness. Each runs in its own process group (so a terminal's Ctrl-C
// reaches only the harness, which stops them in order) and is registered with the watchdog,
// which kills whatever is left if the harness itself dies.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createWriteStream, type WriteStream } from "node:fs";
import { fileURLToPath } from "node:url";
import { childEnv } from "../../lib/env";
import type { WatchdogMessage } from "./watchdog-protocol";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** Set on every child (the watchdog too), so a test can tell whether any of them is left. */
export const RUN_MARKER = "AGENT_LEDGER_CHAOS_RUN";

export type Exit = { code: number | null; signal: NodeJS.Signals | null };

export type Child = {
  pid: number;
  child: ChildProcess;
  exited: Promise<Exit>;
  /** The last lines it wrote (stdout and stderr), for error messages. */
  tail: () => string[];
  signal: (signal: NodeJS.Signals) => void;
};

export type Watchdog = {
  send: (message: WatchdogMessage) => void;
  /** Closes the watchdog's stdin; it then stops whatever is still registered (by now, nothing). */
  release: () => Promise<void>;
};

/** Starts the watchdog; it acts when its stdin closes, which happens however the harness ends. */
export function startWatchdog(): Watchdog {
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/chaos/watchdog.ts"], {
    cwd: ROOT,
    env: childEnv({ [RUN_MARKER]: String(process.pid) }),
    detached: true,
    stdio: ["pipe", "ignore", "inherit"],
  });
  child.unref();
  const stdin = child.stdin;
  if (!stdin) throw new Error("the watchdog has no stdin");
  // Our end of the pipe must not keep the harness alive, and a watchdog that died must not
  // crash the harness with EPIPE.
  stdin.on("error", () => {});
  (stdin as unknown as { unref?: () => void }).unref?.();
  return {
    send(message) {
      if (stdin.writable) stdin.write(`${JSON.stringify(message)}\n`);
    },
    async release() {
      if (!stdin.writable) return;
      // Every "forget" flushed first, or the watchdog would stop what is already stopped.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 2_000);
        stdin.end(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
  };
}

export type SpawnOptions = {
  args: string[];
  env: NodeJS.ProcessEnv;
  watchdog: Watchdog;
  /** Every line the child writes, prefixed with `label`, goes here too. */
  log?: WriteStream;
  label: string;
  onLine?: (line: string) => void;
};

/** `node --import tsx <args>` in its own process group, lines captured. */
export function spawnNode(opts: SpawnOptions): Child {
  const child = spawn(process.execPath, ["--import", "tsx", ...opts.args], {
    cwd: ROOT,
    env: { ...opts.env, [RUN_MARKER]: String(process.pid) },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not start ${opts.label}`);
  opts.watchdog.send({ group: pid });
  const tail: string[] = [];
  const exited = new Promise<Exit>((resolve) => {
    child.once("exit", (code, signal) => {
      opts.watchdog.send({ forget: pid });
      resolve({ code, signal });
    });
  });
  for (const stream of [child.stdout, child.stderr]) {
    let partial = "";
    stream?.setEncoding("utf8");
    stream?.on("data", (chunk: string) => {
      const parts = (partial + chunk).split("\n");
      partial = parts.pop() ?? "";
      for (const line of parts) {
        tail.push(line);
        if (tail.length > 40) tail.shift();
        opts.log?.write(`${opts.label} ${line}\n`);
        opts.onLine?.(line);
      }
    });
  }
  return {
    pid,
    child,
    exited,
    tail: () => [...tail],
    signal(signal) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      try {
        process.kill(-pid, signal);
      } catch {
        // Exited in the meantime.
      }
    },
  };
}

/** Sends `signal`, escalating to SIGKILL after `graceMs`; says whether it had to. */
export async function stopChild(
  child: Child,
  signal: NodeJS.Signals,
  graceMs: number,
): Promise<Exit & { forced: boolean }> {
  let forced = false;
  child.signal(signal);
  const timer = setTimeout(() => {
    forced = true;
    child.signal("SIGKILL");
  }, graceMs);
  try {
    return { ...(await child.exited), forced };
  } finally {
    clearTimeout(timer);
  }
}

export function openLog(file: string): WriteStream {
  const stream = createWriteStream(file, { flags: "a" });
  stream.on("error", () => {});
  return stream;
}

export async function closeLog(stream: WriteStream): Promise<void> {
  if (stream.closed) return;
  stream.end();
  await once(stream, "close").catch(() => undefined);
}
