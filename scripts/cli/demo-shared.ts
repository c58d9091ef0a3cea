// What the `demo` subcommands share: a live worker for the agent before anything is staged,
// waiting (with progress, interruptible) until the worker has settled every staged task, and
// reading back how each one ended, grouped as the dead-letter screen groups them.
import path from "node:path";
import type pg from "pg";
import { DEMO_PAYMENTS_URL, env } from "../../lib/env";
import { liveWorkerSql } from "../../lib/server/queries/worker-liveness";
import { liveRun, runFilePath } from "../launch/run-file";
import { type Progress, parseOption, wholeNumber } from "./shared";

/** A worker of the fleet running `agent`, seen within one lease: who will dead-letter the tasks. */
/** --timeout S: how long a demo command waits for its dead letters (1 s to an hour). */
export function timeoutSeconds(option: string | undefined, byDefault: number): number {
  return option === undefined ? byDefault : parseOption(wholeNumber(1, 3_600), option, "--timeout");
}

export async function liveWorkerFor(pool: pg.Pool, agent: string): Promise<boolean> {
  const { rows } = await pool.query<{ live: number }>(
    `select count(*)::int as live from workers where $1 = any(agents) and ${liveWorkerSql("$2")}`,
    [agent, env().AGENT_LEDGER_LEASE_MS],
  );
  return (rows[0]?.live ?? 0) > 0;
}

export function noLiveWorker(agent: string): string {
  return `no live worker runs ${agent}, so nothing would dead-letter the tasks: start the demo (npm start) or a worker (npm run worker), then run this again. Nothing was staged.`;
}

/** How one staged task ended (or where it is). */
export type TaskEnd = {
  id: string;
  status: string;
  deadReason: string | null;
  fingerprint: string | null;
  message: string | null;
};

const IN_FLIGHT = ["queued", "running", "retry_wait"];

export async function readTaskEnds(pool: pg.Pool, taskIds: readonly string[]): Promise<TaskEnd[]> {
  const { rows } = await pool.query<TaskEnd>(
    `select t.id, t.status, t.dead_reason as "deadReason", t.dead_fingerprint as fingerprint,
            coalesce(t.last_error ->> 'message', t.last_error #>> '{}') as message
       from unnest($1::uuid[]) with ordinality as s(id, n) join tasks t on t.id = s.id
      order by s.n`,
    [taskIds],
  );
  return rows;
}

/**
 * Waits until no staged task is queued, running or waiting to retry, or the time is up, or
 * `signal` aborts (Ctrl-C). Answers how each task ended and why the wait stopped.
 */
export async function waitUntilSettled(
  pool: pg.Pool,
  taskIds: readonly string[],
  opts: { timeoutMs: number; progress: Progress; signal: AbortSignal },
): Promise<{ ends: TaskEnd[]; stopped: "settled" | "timeout" | "interrupted" }> {
  const until = Date.now() + opts.timeoutMs;
  for (;;) {
    const ends = await readTaskEnds(pool, taskIds);
    opts.progress.update(ends.filter((e) => e.status === "dead").length);
    if (!ends.some((e) => IN_FLIGHT.includes(e.status))) return { ends, stopped: "settled" };
    if (opts.signal.aborted) return { ends, stopped: "interrupted" };
    if (Date.now() >= until) return { ends, stopped: "timeout" };
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** Aborts on SIGINT or SIGTERM while `fn` runs, so it can clean up before the process ends. */
export async function interruptible<T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  try {
    return await fn(stop.signal);
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}

/** The demo payments service, and whence its address, for the messages that name it. */
export type PaymentsTarget = { url: string; from: string };

/**
 * Where the worker meets the payments service: --payments-url, else PAYMENTS_URL, else where a
 * running `npm start` says it put the demo's (another port when 4242 was taken), else 4242.
 */
export function paymentsTarget(option: string | undefined): PaymentsTarget {
  if (option !== undefined) return { url: option, from: "given by --payments-url" };
  const configured = env().PAYMENTS_URL;
  if (configured) return { url: configured, from: "set by PAYMENTS_URL" };
  const run = liveRun();
  if (run?.demo) {
    const file = path.relative(process.cwd(), runFilePath()) || runFilePath();
    return {
      url: run.demo.paymentsUrl,
      from: `recorded by npm start (pid ${run.launcher}) in ${file}`,
    };
  }
  return { url: DEMO_PAYMENTS_URL, from: "the default, as no running npm start recorded another" };
}

/** Where people open the dashboard, for the links the commands print. */
export function dashboardUrl(): string {
  const config = env();
  if (config.AUTH_BASE_URL) return config.AUTH_BASE_URL.replace(/\/$/, "");
  // The address a running `npm start` printed, PORT and HOST included.
  const running = liveRun()?.url;
  if (running) return running;
  const host = ["127.0.0.1", "0.0.0.0", "::"].includes(config.HOST) ? "localhost" : config.HOST;
  return `http://${host}:${config.PORT}`;
}

export type DeadGroup = {
  reason: string;
  fingerprint: string;
  /** One task's message, as the group shows it. */
  error: string;
  count: number;
  /** The dead-letter list filtered to this group. */
  href: string;
};

/** The dead tasks among `ends` grouped by reason and error fingerprint, largest first. */
export function deadGroups(ends: readonly TaskEnd[], agent: string): DeadGroup[] {
  const groups = new Map<string, DeadGroup>();
  for (const e of ends) {
    if (e.status !== "dead") continue;
    const reason = e.deadReason ?? "";
    const fingerprint = e.fingerprint ?? "";
    const id = `${reason}\u0000${fingerprint}`;
    const group = groups.get(id);
    if (group) {
      group.count++;
      continue;
    }
    const query = new URLSearchParams({ reason, fingerprint, agent });
    groups.set(id, {
      reason,
      fingerprint,
      error: e.message ?? "",
      count: 1,
      href: `${dashboardUrl()}/dead-letters?${query}`,
    });
  }
  return [...groups.values()].sort((a, b) => b.count - a.count);
}

/** Counts by status, as "58 dead, 2 succeeded". */
export function statusCounts(ends: readonly TaskEnd[]): string {
  const counts = new Map<string, number>();
  for (const e of ends) counts.set(e.status, (counts.get(e.status) ?? 0) + 1);
  return [...counts].map(([status, n]) => `${n} ${status}`).join(", ");
}
