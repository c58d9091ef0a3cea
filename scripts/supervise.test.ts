// The launcher's restart policy: doubling backoff for quick crashes, capped, starting over after
// a healthy run; and the supervisor restarting a real child process by it, until told to stop.
import { spawn } from "node:child_process";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { nextRestart, type RestartPolicy, supervise } from "./supervise";

const policy: RestartPolicy = { initialMs: 500, maxMs: 30_000, healthyAfterMs: 60_000 };

describe("nextRestart", () => {
  it("doubles the delay for each quick failure, up to the cap", () => {
    let failures = 0;
    const delays: number[] = [];
    for (let i = 0; i < 9; i++) {
      const next = nextRestart(failures, 1_000, policy);
      delays.push(next.delayMs);
      failures = next.failures;
    }
    expect(delays).toEqual([500, 1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000]);
    expect(failures).toBe(9);
  });

  it("starts over after a child ran healthy for long enough", () => {
    expect(nextRestart(6, 59_999, policy)).toEqual({ delayMs: 30_000, failures: 7 });
    expect(nextRestart(6, 60_000, policy)).toEqual({ delayMs: 500, failures: 1 });
  });
});

type Line = { msg: string; restartInMs?: number; exit?: string };
function captured(): { log: pino.Logger; lines: Line[] } {
  const lines: Line[] = [];
  const log = pino({ level: "debug" }, { write: (l: string) => lines.push(JSON.parse(l) as Line) });
  return { log, lines };
}

const until = async (test: () => boolean, timeoutMs = 20_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!test()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe("supervise", () => {
  it("restarts a crashing child with growing delays and logs why and when", async () => {
    const { log, lines } = captured();
    const pids: (number | undefined)[] = [];
    const s = supervise({
      name: "worker",
      spawnChild: () => spawn(process.execPath, ["-e", "process.exit(3)"], { stdio: "ignore" }),
      stopping: () => false,
      log,
      policy: { initialMs: 40, maxMs: 160, healthyAfterMs: 60_000 },
      onStart: (c) => pids.push(c.pid),
      settleMs: 0,
    });
    await until(() => pids.length >= 5);
    s.release();
    const restarts = lines.filter((l) => l.restartInMs !== undefined);
    expect(restarts.slice(0, 4).map((l) => l.restartInMs)).toEqual([40, 80, 160, 160]);
    expect(restarts[0]?.exit).toBe("code 3");
    expect(restarts[0]?.msg).toContain("the worker exited (code 3); restarting it in 40 ms");
    expect(new Set(pids).size).toBe(pids.length);
  });

  it("does not restart a child that exits because the stack is stopping", async () => {
    const { log, lines } = captured();
    let stopping = false;
    let starts = 0;
    let exited = false;
    const s = supervise({
      name: "web server",
      spawnChild: () =>
        spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" }),
      stopping: () => stopping,
      log,
      policy: { initialMs: 10, maxMs: 10, healthyAfterMs: 60_000 },
      onStart: () => starts++,
      onExit: () => {
        exited = true;
      },
      settleMs: 50,
    });
    await until(() => s.current()?.pid !== undefined);
    stopping = true;
    s.current()?.kill("SIGTERM");
    await until(() => exited);
    // Past the settle time and the restart delay: nothing was started again.
    await new Promise((r) => setTimeout(r, 200));
    s.release();
    expect(starts).toBe(1);
    expect(s.current()).toBeUndefined();
    expect(lines.filter((l) => l.restartInMs !== undefined)).toEqual([]);
  });
});
