// A keyed concurrency limit held by three worker processes on one database (issue 21): 60 tasks
// over 3 keys, limit 2 per key, each task's tool holding ~100 ms. The limit is the database's,
// not a process's: from the tool's own start and end times (its effects' results) no instant
// has more than 2 running per key, and from the ledger every task succeeded once, first try.
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { setUpTestDatabase } from "../../db/testing/database";
import { operator } from "../../lib/domain/access";
import { enqueueTasks } from "../../lib/server/commands/enqueue-tasks";
import { mostAtOnce } from "../testing/fixtures/keyed-receiver";
import { runtimeTestKit } from "./test-support";

const t = await setUpTestDatabase("concurrency_processes");
const kit = runtimeTestKit(t.pool);
const FIXTURE = fileURLToPath(new URL("./fixtures/concurrency-worker.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const LIMIT = 2;
const KEYS = ["acme", "globex", "initech"];

const children: ChildProcess[] = [];
afterAll(async () => {
  await Promise.all(
    children.map(
      (c) =>
        new Promise<void>((resolve) => {
          if (c.exitCode !== null || c.signalCode !== null) return resolve();
          c.once("exit", () => resolve());
          c.kill("SIGTERM");
        }),
    ),
  );
});

/** Starts one worker process and resolves once it says it is ready. */
function startProcess(): Promise<void> {
  const child = spawn(process.execPath, ["--import", "tsx", FIXTURE, t.appUrl], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let err = "";
  child.stderr?.on("data", (d: Buffer) => {
    err += d.toString();
  });
  return new Promise((resolve, reject) => {
    child.stdout?.on("data", (d: Buffer) => {
      if (d.toString().includes("ready")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`worker exited (${code}): ${err}`)));
  });
}

describe("a keyed concurrency limit across worker processes", () => {
  it("never runs more than the limit per key, and runs every task once", async () => {
    await Promise.all([startProcess(), startProcess(), startProcess()]);
    // One statement, one wake-up: the three processes claim at the same instant.
    const enqueued = await enqueueTasks(
      t.pool,
      operator("test"),
      Array.from({ length: 60 }, (_, n) => ({
        agent: "conc-fleet",
        input: { merchant: KEYS[n % KEYS.length], n },
        unpublished: "enqueue" as const,
      })),
    );
    if (!enqueued.ok) throw new Error(enqueued.message);
    const ids = enqueued.value.map((v) => v.taskId);
    for (const id of ids) expect((await kit.settle(id, 60_000)).status).toBe("succeeded");

    const { rows } = await t.pool.query<{
      key: string;
      attempts: number;
      result: { startedAt: number; endedAt: number; pid: number };
    }>(
      `select t.concurrency_key as key, e.attempts, e.result
       from effects e join tasks t on t.id = e.task_id where t.agent = 'conc-fleet'`,
    );
    expect(rows).toHaveLength(60);
    expect(rows.every((r) => r.attempts === 1)).toBe(true);
    for (const key of KEYS) {
      const ran = rows.filter((r) => r.key === key).map((r) => r.result);
      expect(ran).toHaveLength(20);
      expect(mostAtOnce(ran.map((r) => ({ from: r.startedAt, to: r.endedAt })))).toBe(LIMIT);
    }
    // The work was shared: more than one process ran it.
    expect(new Set(rows.map((r) => r.result.pid)).size).toBeGreaterThan(1);

    // One start (on each attempt's first entry) and one success per task.
    const { rows: ledger } = await t.pool.query<{ started: number; succeeded: number }>(
      `select (count(*) filter (where kind = 'attempt.started' or data ? 'attemptStarted'))::int as started,
              (count(*) filter (where kind = 'task.succeeded'))::int as succeeded
       from ledger_entries where task_id = any($1::uuid[])`,
      [ids],
    );
    expect(ledger).toEqual([{ started: 60, succeeded: 60 }]);
  }, 90_000);
});
