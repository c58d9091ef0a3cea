// agent-ledger demo outage: refunds dead-lettered for real by a provider outage. The demo
// payments service fails this run's payments (scoped outages, one per error), the refunds are
// enqueued as any others, the worker retries each to its limit and dead-letters it, and the
// outage ends before the command does, so the refunds can be replayed from the inbox.
import { z } from "zod";
import { env } from "../../lib/env";
import { stageDemoTasks } from "../../lib/server/commands/stage-demo-tasks";
import {
  addOutages,
  PaymentsControlError,
  readPaymentsFaults,
  removeOutages,
} from "../../worker/demo/payments-control";
import { OUTAGE_ERRORS, outagePlan, stagingRunId } from "../../worker/demo/staging";
import {
  dashboardUrl,
  deadGroups,
  interruptible,
  liveWorkerFor,
  noLiveWorker,
  paymentsTarget,
  statusCounts,
  timeoutSeconds,
  waitUntilSettled,
} from "./demo-shared";
import { cliPrincipal, failure, withAppDatabase } from "./operator";
import {
  EXIT,
  helpOption,
  jsonOption,
  parseOption,
  parseOptions,
  printJson,
  progressOption,
  type Subcommand,
  startProgress,
  UsageError,
  wholeNumber,
} from "./shared";

export const MAX_OUTAGE_TASKS = 5_000;
const DEFAULT_TIMEOUT_S = 300;
/**
 * Each refund is tried to its limit (6 attempts, backoff doubling from 0.5 s): 1,000 took
 * 119 s on npm start's worker (concurrency 4) on a loaded 2-core box, so larger runs wait longer.
 */
const timeoutFor = (count: number) => Math.max(DEFAULT_TIMEOUT_S, Math.ceil(count / 2));

const agentSchema = z.string().refine((a) => a === "refund", {
  error: (issue) =>
    `the demo stages an outage for refund only (the payments service is the receiver with a fault control); got "${String(issue.input)}"`,
});
const urlSchema = z.url({ error: "must be a URL like http://127.0.0.1:4242" });

function required(value: string | undefined, option: string): string {
  if (value === undefined) throw new UsageError(`${option}: is required`);
  return value;
}

export const demoOutage: Subcommand = {
  name: "outage",
  synopsis:
    "--agent refund --count N [--errors E] [--payments-url URL] [--timeout S] [--json] [--progress]",
  description: `Stages a provider outage the worker meets for real: with a live worker running refund and
the demo payments service answering, adds one scoped outage per error to the service's faults
(PUT /__control/faults, for this run's payments only), enqueues N refunds (1 to ${MAX_OUTAGE_TASKS.toLocaleString("en-US")})
spread over E distinct provider errors (1 to ${OUTAGE_ERRORS.length}, default 1), waits until the worker has retried
each to its limit and dead-lettered it, then removes the outages (also on Ctrl-C), prints the
error groups and where to look. A demo.staged entry in the system stream records it.
  --payments-url URL  the demo payments service (default PAYMENTS_URL, else where a running
                      npm start put it, as its .data/run.json says, else http://127.0.0.1:4242)
  --timeout S         how long to wait for the dead letters (default ${DEFAULT_TIMEOUT_S} s, or half a
                      second per refund when that is longer)
  --progress          progress on stderr even when it is not a terminal
Exit codes: 0 every refund dead-lettered with its error, 1 not every refund ended so within
the time (the output says which and why), 2 could not run (bad options, no live worker for
refund, the payments service not answering): nothing is staged then.`,
  run: async (argv) => {
    const opts = parseOptions(argv, {
      ...helpOption,
      ...jsonOption,
      ...progressOption,
      agent: { type: "string" },
      count: { type: "string" },
      errors: { type: "string" },
      "payments-url": { type: "string" },
      timeout: { type: "string" },
    });
    const agent = parseOption(agentSchema, required(opts.agent, "--agent"), "--agent");
    const count = parseOption(
      wholeNumber(1, MAX_OUTAGE_TASKS),
      required(opts.count, "--count"),
      "--count",
    );
    const errors =
      opts.errors === undefined
        ? 1
        : parseOption(wholeNumber(1, OUTAGE_ERRORS.length), opts.errors, "--errors");
    if (errors > count)
      throw new UsageError(
        `--errors: ${errors} errors need at least as many tasks (--count ${count})`,
      );
    const timeoutS = timeoutSeconds(opts.timeout, timeoutFor(count));
    const config = env();
    const payments = paymentsTarget(opts["payments-url"]);
    const paymentsUrl = parseOption(urlSchema, payments.url, "--payments-url");

    return withAppDatabase("demo", async (pool) => {
      if (!(await liveWorkerFor(pool, agent))) {
        console.error(`agent-ledger demo outage: ${noLiveWorker(agent)}`);
        return EXIT.error;
      }
      try {
        await readPaymentsFaults(paymentsUrl);
      } catch (err) {
        if (!(err instanceof PaymentsControlError)) throw err;
        console.error(
          `agent-ledger demo outage: ${err.message}; that address is ${payments.from}. The outage is staged through it: start the demo (npm start) or pass --payments-url with the address npm start printed. Nothing was staged.`,
        );
        return EXIT.error;
      }
      const runId = stagingRunId();
      const plan = outagePlan({
        runId,
        count,
        errors,
        approvalThresholdCents: config.REFUND_APPROVAL_THRESHOLD,
      });
      const prefixes = plan.outages.map((o) => o.paymentIntentPrefix);
      const progress = startProgress({
        verb: "dead-lettered",
        unit: "refunds",
        total: count,
        forced: opts.progress === true,
      });
      await addOutages(paymentsUrl, plan.outages);
      const outcome = await interruptible(async (signal) => {
        try {
          const staged = await stageDemoTasks(pool, cliPrincipal(), {
            what: "outage",
            agent,
            inputs: plan.tasks.map((t) => t.input),
            checked: true,
            details: {
              runId,
              paymentsUrl,
              errors: plan.outages.map((o) => ({ status: o.status, message: o.message })),
            },
          });
          if (!staged.ok) return { staged };
          progress.note(
            `enqueued ${count} refunds (run ${runId}); the payments service fails them until they are dead…`,
          );
          const waited = await waitUntilSettled(pool, staged.value.taskIds, {
            timeoutMs: timeoutS * 1000,
            progress,
            signal,
          });
          return { staged, waited };
        } finally {
          await removeOutages(paymentsUrl, prefixes);
        }
      });
      progress.finish();
      if (!outcome.staged.ok) return failure("demo outage", outcome.staged);
      const { ends, stopped } = outcome.waited ?? { ends: [], stopped: "settled" };

      // Each refund should be dead, retried to its limit, with the error its payment was given.
      const wrong = ends.filter((e, i) => {
        const planned = plan.outages[plan.tasks[i]?.error ?? 0];
        return (
          e.status !== "dead" ||
          e.deadReason !== "exhausted" ||
          planned === undefined ||
          !(e.message ?? "").includes(planned.message)
        );
      });
      const groups = deadGroups(ends, agent);
      const base = dashboardUrl();
      if (opts.json) {
        printJson({
          runId,
          agent,
          staged: count,
          dead: ends.filter((e) => e.status === "dead").length,
          stopped,
          outageOver: true,
          groups,
          unexpected: wrong.map((e) => ({
            id: e.id,
            status: e.status,
            reason: e.deadReason,
            error: e.message,
          })),
          taskIds: ends.map((e) => e.id),
        });
      } else {
        console.log(
          `Staged an outage of the demo payments service (run ${runId}): ${count} refunds, now ${statusCounts(ends)}.`,
        );
        for (const g of groups)
          console.log(`  ${g.count}  ${g.reason}: ${g.error}\n      ${g.href}`);
        console.log(
          `The outage is over (its faults are removed), so the refunds can be replayed: start at ${base}/inbox or ${base}/dead-letters?agent=${agent}. Recorded as demo.staged in the system stream.`,
        );
      }
      if (wrong.length === 0) return EXIT.ok;
      const succeeded = wrong.filter((e) => e.status === "succeeded").length;
      const why =
        stopped === "interrupted"
          ? "interrupted before they were all dead"
          : stopped === "timeout"
            ? `still not all dead after ${timeoutS} s (is the worker busy? --timeout waits longer)`
            : succeeded > 0
              ? `${succeeded} succeeded: the worker sends refunds to another payments service than ${paymentsUrl} (pass --payments-url with the address npm start printed)`
              : "they ended otherwise than the outage should have made them";
      console.error(
        `agent-ledger demo outage: ${wrong.length} of ${count} refunds are not dead with their outage error: ${why}.`,
      );
      return EXIT.problem;
    });
  },
};
