// `npm run chaos`: the crash harness. See scripts/chaos/options.ts for what it does and how to
// run it; the pieces live in scripts/chaos/. Exit 0: nothing delivered twice, nothing lost,
// every chain intact. Exit 1: one of those broke (named on stderr). Exit 2: it could not run.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type pg from "pg";
import { createPool } from "../db/client";
import { FAULT_POINTS } from "../lib/server/fault-points";
import { createDice } from "../worker/demo/fault-dice";
import {
  evidence,
  type Findings,
  failures,
  inspect,
  statusCounts,
  waitForQuiescence,
} from "./chaos/check";
import { type Fleet, startFleet } from "./chaos/fleet";
import { type Killer, startKiller } from "./chaos/killer";
import { type Options, parseOptions, USAGE, UsageError } from "./chaos/options";
import { closeLog, openLog, startWatchdog } from "./chaos/processes";
import { type Database, type Receivers, startDatabase, startReceivers } from "./chaos/services";
import {
  type Approver,
  installPolicies,
  planTasks,
  startApprover,
  startFeed,
} from "./chaos/workload";

let opts: Options;
try {
  opts = parseOptions(process.argv.slice(2));
} catch (err) {
  if (!(err instanceof UsageError)) throw err;
  console.error(`chaos: ${err.message}\n\n${USAGE}`);
  process.exit(2);
}
if (opts.help) {
  console.log(USAGE);
  process.exit(0);
}

const started = Date.now();
const seed = opts.seed ?? randomBytes(4).readUInt32BE(0);
const dice = createDice(seed);
const quiet = opts["json-only"];
const say = (message: string) => {
  if (!quiet) console.error(`[chaos ${((Date.now() - started) / 1000).toFixed(1)}s] ${message}`);
};
let warnings = 0;
const warn = (message: string) => {
  warnings++;
  // Not silenced by --json-only: a warning is something to look at.
  console.error(`chaos: warning: ${message}`);
};

// First Ctrl-C (or SIGTERM, SIGHUP): stop in order and clean up. Second: leave at once; the
// watchdog cleans up behind us.
const abort = new AbortController();
let fatal: Error | null = null;
const stopRun = (why: Error) => {
  fatal ??= why;
  abort.abort(why);
};
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  process.on(signal, () => {
    if (abort.signal.aborted) process.exit(130);
    console.error(`chaos: ${signal}: stopping and cleaning up (again to leave at once)`);
    stopRun(new Error(`interrupted by ${signal}`));
  });
}
process.on("unhandledRejection", (err) =>
  stopRun(err instanceof Error ? err : new Error(String(err))),
);

const workDir = mkdtempSync(path.join(tmpdir(), "agent-ledger-chaos-"));
const logFile = path.join(workDir, "processes.log");
const log = openLog(logFile);
const watchdog = startWatchdog();
watchdog.send({ scratch: workDir });

let database: Database | undefined;
let receivers: Receivers | undefined;
let pool: pg.Pool | undefined;
let fleet: Fleet | undefined;
let approver: Approver | undefined;
let killer: Killer | undefined;
let findings: Findings | undefined;
let timedOut: "kills" | "rest" | null = null;
let exitCode = 0;

try {
  say(`seed ${seed}; starting PostgreSQL and the demo receivers`);
  // Both at once, but each kept as soon as it is up, so a failure of one still stops the other.
  const up = await Promise.allSettled([
    startDatabase(watchdog).then((d) => {
      database = d;
    }),
    startReceivers(watchdog, log).then((r) => {
      receivers = r;
    }),
  ]);
  for (const r of up) if (r.status === "rejected") throw r.reason;
  abort.signal.throwIfAborted();
  if (!database || !receivers) throw new Error("unreachable: services not started");
  pool = createPool(database.urls.appUrl, { max: 4, applicationName: "agent-ledger-chaos" });
  await installPolicies(pool);
  const plan = planTasks(opts.tasks, dice, seed.toString(36));
  // Enough to keep every worker busy at first; the rest arrives as the kills go on.
  const initial = opts.kills === 0 ? plan.length : opts.workers * opts.concurrency * 2;
  const feed = await startFeed(pool, plan, initial, (err) =>
    stopRun(err instanceof Error ? err : new Error(String(err))),
  );
  say(
    `planned ${plan.length} tasks (${plan.filter((t) => t.agent === "refund").length} refunds), enqueued ${feed.enqueued()}, the rest as the kills go on; starting ${opts.workers} workers`,
  );
  abort.signal.throwIfAborted();

  const timeoutMs = opts["timeout-s"] * 1000;
  fleet = startFleet({
    workers: opts.workers,
    concurrency: opts.concurrency,
    leaseMs: opts["lease-ms"],
    databaseUrl: database.urls.appUrl,
    smtpUrl: receivers.smtpUrl,
    paymentsUrl: receivers.paymentsUrl,
    watchdog,
    log,
    warn,
    fail: stopRun,
  });
  const poolForLoops = pool;
  approver = startApprover(pool, dice, (err) =>
    warn(`approver: ${err instanceof Error ? err.message : String(err)}`),
  );
  killer = startKiller({
    pool,
    fleet,
    kills: opts.kills,
    meanLifeMs: opts["life-ms"],
    onKill: (n) => feed.releaseUpTo(n / opts.kills),
    onStarved: () => feed.releaseMore(Math.ceil(plan.length / (opts.kills + 1))),
    dice,
    stallMs: timeoutMs,
    signal: abort.signal,
  });

  const progress = setInterval(() => {
    void statusCounts(poolForLoops).then(
      (counts) => {
        const f = fleet?.deaths;
        const states = [...counts].map(([s, n]) => `${s} ${n}`).join(", ");
        const points = f ? FAULT_POINTS.map((p) => f.faultPoints[p]).join("/") : "";
        say(`${states}; kills ${f?.harness ?? 0}/${opts.kills}, fault points ${points}`);
      },
      () => {},
    );
  }, 5_000);
  try {
    await killer.done;
    feed.releaseUpTo(1);
    await feed.flush();
    if (killer.stalled()) timedOut = "kills";
    else if (!abort.signal.aborted) {
      say(`${opts.kills} kills done; waiting for every task to come to rest`);
      // Not AbortSignal.any with AbortSignal.timeout: on Node 20 the timeout signal can be
      // collected before it fires, and the composite never aborts.
      const rest = new AbortController();
      const onAbort = () => rest.abort();
      abort.signal.addEventListener("abort", onAbort, { once: true });
      const timer = setTimeout(() => rest.abort(), timeoutMs);
      try {
        if (!(await waitForQuiescence(pool, rest.signal)) && !abort.signal.aborted) {
          timedOut = "rest";
        }
      } finally {
        clearTimeout(timer);
        abort.signal.removeEventListener("abort", onAbort);
      }
    }
  } finally {
    clearInterval(progress);
  }
  abort.signal.throwIfAborted();
  await approver.stop();
  say("at rest; stopping the workers (SIGTERM)");
  await fleet.stop();
  say("workers stopped; counting deliveries and verifying the ledger");
  findings = await inspect(pool, receivers, plan.length, fleet.diedAt);
  if (failures(findings).length > 0) {
    const file = path.join(workDir, "evidence.json");
    writeFileSync(file, JSON.stringify(await evidence(pool, findings), null, 2));
    console.error(`chaos: the affected tasks, their effects, steps and ledger: ${file}`);
  }
} catch (err) {
  fatal ??= err instanceof Error ? err : new Error(String(err));
} finally {
  say("cleaning up");
  await approver?.stop().catch(() => undefined);
  if (fatal) await fleet?.killAll();
  else await fleet?.stop();
  await receivers?.stop().catch(() => undefined);
  await pool?.end().catch(() => undefined);
  await database
    ?.stop()
    .catch((err: unknown) => warn(`could not stop the database: ${String(err)}`));
}

if (findings && fleet) {
  const f = findings;
  const duplicates = f.smtp.duplicated.length + f.payments.duplicated.length;
  const result = {
    tasks: opts.tasks,
    succeeded: f.succeeded,
    dead: f.dead,
    held: f.held,
    kills: {
      counted: "harness kill -9s only; fault-point deaths are on top",
      harness: fleet.deaths.harness,
      harnessWhileBusy: killer?.busyKills() ?? 0,
      faultPoints: fleet.deaths.faultPoints,
      unexplained: fleet.deaths.unexplained,
    },
    restarts: fleet.restarts(),
    workerExits: fleet.deaths.exited,
    workerLost: f.workerLost,
    recoveryMs: f.recoveryMs,
    approvals: approver?.approved() ?? 0,
    deliveries: {
      smtp: { intents: f.smtp.intents, messages: f.smtp.deliveries, max: f.smtp.max },
      payments: {
        intents: f.payments.intents,
        refundsCreated: f.payments.deliveries,
        max: f.payments.max,
      },
      missing: f.missing.length,
      unrecorded: f.unrecorded.length,
    },
    duplicates,
    lost: f.lost,
    chain: { ok: f.chain.ok, entries: f.chain.entries, streams: f.chain.streams },
    timedOut,
    warnings,
    seed,
    seconds: Number(((Date.now() - started) / 1000).toFixed(1)),
  };
  console.log(JSON.stringify(result));
  const failed = failures(f);
  if (timedOut === "kills") failed.push(`timed out: no kill possible for ${opts["timeout-s"]} s`);
  if (timedOut === "rest") {
    failed.push(`timed out: tasks still moving ${opts["timeout-s"]} s after the last kill`);
  }
  for (const failure of failed) console.error(`chaos: FAIL: ${failure}`);
  if (failed.length > 0) exitCode = 1;
} else {
  console.error(`chaos: could not finish: ${fatal?.message ?? "unknown error"}`);
  exitCode = abort.signal.aborted && fatal?.message.startsWith("interrupted") ? 130 : 2;
}

say("done");
await closeLog(log);
// Kept when there is something to look into: a failed run, or one that could not run.
if ((exitCode === 0 || exitCode === 130) && !opts["keep-logs"]) {
  rmSync(workDir, { recursive: true, force: true });
} else {
  watchdog.send({ keep: workDir });
  console.error(`chaos: worker and receiver output kept in ${logFile}`);
}
await watchdog.release();
await sleep(0);
process.exit(exitCode);
