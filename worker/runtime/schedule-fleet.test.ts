// Three worker processes on one database tick the same every-second schedule: each occurrence
// must be exactly one task, consecutive seconds from the first to the last, none twice. The
// issue's full proof runs a minute: SCHEDULE_FLEET_SECONDS=60.
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { setUpTestDatabase } from "../../db/testing/database";
import { childEnv } from "../../lib/env";

const SECONDS = Number(process.env.SCHEDULE_FLEET_SECONDS ?? 10);
const WORKERS = 3;
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const t = await setUpTestDatabase("schedule_fleet");

function startWorkerProcess(): { child: ChildProcess; exited: Promise<number | null> } {
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
      env: childEnv({ DATABASE_URL: t.appUrl, DATABASE_OWNER_URL: "", LOG_LEVEL: "warn" }),
    },
  );
  const exited = new Promise<number | null>((resolve) =>
    child.once("exit", (code) => resolve(code)),
  );
  return { child, exited };
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
      const workers = Array.from({ length: WORKERS }, startWorkerProcess);
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
        await new Promise((r) => setTimeout(r, SECONDS * 1_000));
        const to = Date.now();
        for (const w of workers) w.child.kill("SIGTERM");
        expect(await Promise.all(workers.map((w) => w.exited))).toEqual([0, 0, 0]);

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
      } finally {
        for (const w of workers) if (w.child.exitCode === null) w.child.kill("SIGKILL");
      }
    },
    (SECONDS + 120) * 1_000,
  );
});
