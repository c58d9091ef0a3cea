// Three worker processes on one database: 30 tasks each wait for the event of their own number;
// a third of the events are sent before any worker runs (kept), the rest while the workers
// park and wake tasks, each sent twice under its key. Every task gets exactly its event, once,
// and succeeds.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { setUpTestDatabase } from "../../db/testing/database";
import { childEnv } from "../../lib/env";
import { sendEvent } from "../../lib/sdk/send-event";
import { runtimeTestKit } from "./test-support";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const t = await setUpTestDatabase("events_fleet");
const kit = runtimeTestKit(t.pool);
const children: ChildProcess[] = [];
afterAll(async () => {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) {
      const exit = once(child, "exit");
      child.kill("SIGTERM");
      await exit;
    }
  }
});

function startWorkerProcess(): ChildProcess {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "worker/runtime/events-fleet-worker.ts"],
    {
      cwd: ROOT,
      env: childEnv({ DATABASE_URL: t.appUrl, AGENT_LEDGER_LEASE_MS: "5000", LOG_LEVEL: "warn" }),
      stdio: ["ignore", "ignore", "inherit"],
    },
  );
  children.push(child);
  return child;
}

const send = (n: number) =>
  sendEvent(t.pool, { name: "fleet.go", payload: { n, sent: "fleet" }, key: `fleet-${n}` });

describe("events across three worker processes", () => {
  it("gives each of 30 waiting tasks exactly its event once", { timeout: 180_000 }, async () => {
    const N = 30;
    const ids: string[] = [];
    for (let n = 0; n < N; n++) ids.push(await kit.enqueue("fleet-waiter", { n }));
    const eventOf = new Map<number, string>();
    for (let n = 0; n < N; n += 3) eventOf.set(n, (await send(n)).event.id);

    for (let i = 0; i < 3; i++) startWorkerProcess();
    // Wait until the workers have parked some tasks, then send the rest while they run, in
    // parallel, each twice.
    await kit.waitFor(ids[1] ?? "", (row) => row.status === "waiting", 60_000);
    const rest = [...Array(N).keys()].filter((n) => n % 3 !== 0);
    await Promise.all(
      rest.map(async (n, i) => {
        await new Promise((r) => setTimeout(r, (i % 7) * 40));
        const first = await send(n);
        const again = await send(n);
        expect(again.event.id).toBe(first.event.id);
        eventOf.set(n, first.event.id);
      }),
    );

    for (const [n, id] of ids.entries()) {
      const done = await kit.settle(id, 60_000);
      expect(done.status, `task ${n}`).toBe("succeeded");
      expect(done.result).toMatchObject({
        got: { timedOut: false, event: { id: eventOf.get(n), payload: { n } } },
      });
      const kinds = await kit.kinds(id);
      expect(
        kinds.filter((k) => k === "event.delivered"),
        `task ${n}: ${kinds}`,
      ).toHaveLength(1);
    }
    const { rows } = await t.pool.query<{ n: number; tasks: number; events: number }>(
      `select count(*)::int as n, count(distinct task_id)::int as tasks, count(distinct event_id)::int as events
       from event_waits where status = 'delivered'`,
    );
    expect(rows[0]).toEqual({ n: N, tasks: N, events: N });
    const { rows: stored } = await t.pool.query("select count(*)::int as n from events");
    expect(stored[0].n).toBe(N);
  });
});
