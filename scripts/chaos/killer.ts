// The harness's own kill -9s, until K are done. Every worker, once ready, draws a random
// moment to die (uniform on [0, 2 × mean life] after it became ready); when that moment comes
// it is killed if it holds a task lease, or as soon as it does. When nothing is left to run the
// harness first releases more of the planned tasks; only once all are out are idle workers
// killed (a kill of an idle worker tests little, but K kills are promised).
import { setTimeout as sleep } from "node:timers/promises";
import type pg from "pg";
import type { Dice } from "../../worker/demo/fault-dice";
import type { Fleet, WorkerProcess } from "./fleet";

export type Killer = {
  busyKills: () => number;
  /** Gave up: no kill was possible for stallMs. */
  stalled: () => boolean;
  done: Promise<void>;
};

export function startKiller(opts: {
  pool: pg.Pool;
  fleet: Fleet;
  kills: number;
  meanLifeMs: number;
  dice: Dice;
  /** Give up when no kill was possible for this long (workers never ready, never busy). */
  stallMs: number;
  signal: AbortSignal;
  /** After each kill, with the number of kills so far. */
  onKill?: (kills: number) => void;
  /** A worker is due but nothing is left to run: true if more work was released for it. */
  onStarved?: () => boolean;
}): Killer {
  let busyKills = 0;
  let stalled = false;
  let lastKillAt = Date.now();
  const dueAt = new WeakMap<WorkerProcess, number>();
  const pause = (ms: number) => sleep(ms, undefined, { signal: opts.signal }).catch(() => {});

  /** The lease holders right now, and whether any task is still on its way. */
  const look = async () => {
    const { rows } = await opts.pool.query<{ owner: string | null; moving: boolean }>(
      `select distinct lease_owner as owner, true as moving from tasks where status = 'running'
       union all
       select null, exists (select 1 from tasks where status in ('queued', 'retry_wait', 'awaiting_approval'))`,
    );
    return {
      owners: new Set(rows.map((r) => r.owner).filter((o): o is string => o !== null)),
      moving: rows.some((r) => r.moving),
    };
  };

  const done = (async () => {
    while (opts.fleet.deaths.harness < opts.kills && !opts.signal.aborted) {
      await pause(20);
      const now = Date.now();
      if (now - lastKillAt > opts.stallMs) {
        stalled = true;
        break;
      }
      const due = opts.fleet.ready().filter((w) => {
        let at = dueAt.get(w);
        if (at === undefined) {
          at = (w.readyAt ?? now) + Math.floor(opts.dice() * 2 * opts.meanLifeMs);
          dueAt.set(w, at);
        }
        return at <= now;
      });
      if (due.length === 0) continue;
      const { owners, moving } = await look();
      const busy = due.filter((w) => w.workerId !== null && owners.has(w.workerId));
      const starved = busy.length === 0 && !moving;
      if (starved && opts.onStarved?.()) continue;
      const victims = busy.length > 0 ? busy : starved ? due : [];
      const victim = victims[Math.floor(opts.dice() * victims.length)];
      if (victim && opts.fleet.kill(victim)) {
        lastKillAt = Date.now();
        if (busy.length > 0) busyKills++;
        opts.onKill?.(opts.fleet.deaths.harness);
      }
    }
  })();
  return { busyKills: () => busyKills, stalled: () => stalled, done };
}
