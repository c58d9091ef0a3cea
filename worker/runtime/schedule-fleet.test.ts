// Three worker processes on one database tick the same every-second schedule: each occurrence
// must be exactly one task, consecutive seconds from the first to the last, none twice. For the
// first 5 s of the stretch every worker dies (SIGKILL) inside each tick that enqueues, after the
// enqueue and before its commit, and each dead one is replaced at once; the clean ones after
// them enqueue what those ticks rolled back (the schedule's missed policy is run-each). The full proof
// runs a minute: SCHEDULE_FLEET_SECONDS=60.
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { setUpTestDatabase } from "../../db/testing/database";
import { childEnv } from "../../lib/env";

const SECONDS = Number(process.env.SCHEDULE_FLEET_SECONDS ?? 10);
const WORKERS = 3;
/** How long the workers die at every tick that enqueues; then clean ones take over. */
const ARMED_MS = Math.min((SECONDS * 1_000) / 2, 5_000);
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const t = await setUpTestDatabase("schedule_fleet");

type WorkerProcess = { child: ChildProcess; exited: Promise<number | NodeJS.Signals | null> };

function startWorkerProcess(armed: boolean): WorkerProcess {
  const child = spawn(
    process.execPath,
    [
      "bin/agent-ledger.mjs",
      "worker",
      "--agents",
      fileURLToPath(new URL("../testing/fixtures/schedule-agents.ts", import.meta.url)),
      "--concurrency",
      "4",
    ],
    {
      cwd: ROOT,
      stdio: ["ignore", "ignore", "inherit"],
      env: childEnv({
        DATABASE_URL: t.appUrl,
        DATABASE_OWNER_URL: "",
        LOG_LEVEL: "warn",
        AGENT_LEDGER_FAULT_POINTS: armed ? JSON.stringify({ "schedule.tick": 1 }) : "",
      }),
    },
  );
  const exited = new Promise<number | NodeJS.Signals | null>((resolve) =>
    child.once("exit", (code, signal) => resolve(signal ?? code)),
  );
  return { child, exited };
}

/** The schedule's last enqueued occurrence, in ms (0 before any). */
async function lastOccurrence(): Promise<number> {
  const { rows } = await t.pool.query<{ at: Date | null }>(
    "select last_occurrence_at as at from schedules where agent = 'metronome'",
  );
  return rows[0]?.at?.getTime() ?? 0;
}

async function scheduleKeys(): Promise<{ id: string; keys: string[] } | undefined> {
  const { rows } = await t.pool.query<{ id: string }>(
    "select id from schedules where agent = 'metronome' and name = 'every-second'",
  );
  const id = rows[0]?.id;
  if (!id) return undefined;
  const tasks = await t.pool.query<{ enqueue_key: string }>(
    "select enqueue_key from tasks where enqueue_key like $1",
    [`schedule:${id}:%`],
  );
  return { id, keys: tasks.rows.map((r) => r.enqueue_key) };
}

describe(`${WORKERS} worker processes, one every-second schedule`, () => {
  it(
    `enqueues each occurrence exactly once for ${SECONDS} s`,
    async () => {
      const workers = Array.from({ length: WORKERS }, () => startWorkerProcess(false));
      let armed = false;
      let stopping = false;
      let kills = 0;
      // A slot whose worker died at the armed point gets a new one at once.
      const keep = (slot: number) => {
        void workers[slot]?.exited.then((how) => {
          if (stopping) return;
          if (how !== "SIGKILL") throw new Error(`a worker exited with ${how}`);
          kills++;
          workers[slot] = startWorkerProcess(armed);
          keep(slot);
        });
      };
      try {
        // Until all three run the agent (each registers itself), then the measured stretch.
        const ready = Date.now() + 60_000;
        for (;;) {
          const { rows } = await t.pool.query<{ n: number }>(
            "select count(*)::int as n from workers where stopped_at is null and 'metronome' = any(agents)",
          );
          if ((rows[0]?.n ?? 0) >= WORKERS) break;
          if (Date.now() > ready) throw new Error("the workers did not all start within 60 s");
          if (workers.some((w) => w.child.exitCode !== null)) throw new Error("a worker exited");
          await new Promise((r) => setTimeout(r, 200));
        }
        const from = Date.now();
        // Armed: each worker is replaced by one that dies in every tick that enqueues.
        armed = true;
        for (let slot = 0; slot < WORKERS; slot++) {
          keep(slot);
          workers[slot]?.child.kill("SIGKILL");
        }
        await new Promise((r) => setTimeout(r, ARMED_MS));
        armed = false;
        await new Promise((r) => setTimeout(r, SECONDS * 1_000 - ARMED_MS));
        // Replacements start slowly on a busy machine: the stretch ends once a clean one ticked.
        const caughtUp = Date.now() + 60_000;
        while ((await lastOccurrence()) < Math.floor(Date.now() / 1_000) * 1_000 - 2_000) {
          if (Date.now() > caughtUp) throw new Error("no clean worker ticked within 60 s");
          await new Promise((r) => setTimeout(r, 200));
        }
        const to = Date.now();
        stopping = true;
        const standing = [...workers];
        for (const w of standing) w?.child.kill("SIGTERM");
        const ends = await Promise.all(standing.map((w) => w?.exited));
        // Each stops cleanly, or dies at the armed point, or is stopped while it still starts
        // (a replacement of the last second, before its signal handler); none fails.
        expect(ends.filter((e) => e !== 0 && e !== "SIGKILL" && e !== "SIGTERM")).toEqual([]);
        // The first three kills were ours (starting the armed generation); the rest, the tick's.
        const tickKills = kills - WORKERS;
        expect(tickKills).toBeGreaterThanOrEqual(1);

        const found = await scheduleKeys();
        if (!found) throw new Error("no worker published the schedule");
        const occurrences = found.keys
          .map((k) => Date.parse(k.slice(`schedule:${found.id}:`.length)))
          .sort((a, b) => a - b);
        expect(new Set(occurrences).size).toBe(occurrences.length);
        const first = occurrences[0] ?? 0;
        const last = occurrences.at(-1) ?? 0;
        // Consecutive seconds: no gap between the first and the last.
        expect(occurrences).toEqual(
          Array.from({ length: (last - first) / 1_000 + 1 }, (_, i) => first + i * 1_000),
        );
        // Every second of the measured stretch is there.
        expect(first).toBeLessThanOrEqual(Math.ceil(from / 1_000) * 1_000);
        expect(last).toBeGreaterThanOrEqual(Math.floor(to / 1_000) * 1_000 - 1_000);
        // One task.enqueued per occurrence: the enqueue wrote no second one.
        const { rows } = await t.pool.query<{ n: number }>(
          "select count(*)::int as n from ledger_entries where kind = 'task.enqueued' and data->'schedule'->>'id' = $1",
          [found.id],
        );
        expect(rows[0]?.n).toBe(occurrences.length);
        console.log(
          `schedule fleet: ${occurrences.length} occurrences over a ${SECONDS} s stretch and its catch-up on ${WORKERS} workers, each once, no gap; ${tickKills} workers killed inside a tick`,
        );
      } finally {
        stopping = true;
        for (const w of workers) if (w?.child.exitCode === null) w.child.kill("SIGKILL");
      }
    },
    (SECONDS + 120) * 1_000,
  );
});
