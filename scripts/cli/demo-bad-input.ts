// agent-ledger demo bad-input: tasks dead on bad input, to try "fix the input and replay" as
// often as wanted. The inputs are written as a producer that skipped the schema check would
// have sent them; the worker's own check refuses each and dead-letters it for real.
import { z } from "zod";
import { stageDemoTasks } from "../../lib/server/commands/stage-demo-tasks";
import { badInputs, STAGE_AGENTS, stagingRunId } from "../../worker/demo/staging";
import {
  dashboardUrl,
  deadGroups,
  interruptible,
  liveWorkerFor,
  noLiveWorker,
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

export const MAX_BAD_INPUTS = 1_000;
const DEFAULT_TIMEOUT_S = 300;

const agentSchema = z.enum(STAGE_AGENTS, {
  error: (issue) =>
    `must be one of ${STAGE_AGENTS.join(", ")} (the demo agents); got "${String(issue.input)}"`,
});

export const demoBadInput: Subcommand = {
  name: "bad-input",
  synopsis: `[--agent ${STAGE_AGENTS.join("|")}] --count N [--timeout S] [--json] [--progress]`,
  description: `Stages tasks dead on bad input: writes N tasks (1 to ${MAX_BAD_INPUTS.toLocaleString("en-US")}) of the agent (default refund)
whose input its schema refuses (a currency spelled out, an amount as text, a negative amount,
an order id with spaces; for invoice-reminder an email that is not one, a misnamed field, an
invoice id as a number), as a producer that skipped the schema check would have sent them, and
waits until the worker has dead-lettered each one non_retryable. Each is fixable with "Fix the
input and replay" on its task page. A demo.staged entry in the system stream records it.
  --timeout S   how long to wait for the dead letters (default ${DEFAULT_TIMEOUT_S} s)
  --progress    progress on stderr even when it is not a terminal
Exit codes: 0 every task dead on its bad input, 1 not every task ended so within the time,
2 could not run (bad options, no live worker for the agent): nothing is staged then.`,
  run: async (argv) => {
    const opts = parseOptions(argv, {
      ...helpOption,
      ...jsonOption,
      ...progressOption,
      agent: { type: "string" },
      count: { type: "string" },
      timeout: { type: "string" },
    });
    const agent = parseOption(agentSchema, opts.agent ?? "refund", "--agent");
    if (opts.count === undefined) throw new UsageError("--count: is required");
    const count = parseOption(wholeNumber(1, MAX_BAD_INPUTS), opts.count, "--count");
    const timeoutS = timeoutSeconds(opts.timeout, DEFAULT_TIMEOUT_S);

    return withAppDatabase("demo", async (pool) => {
      if (!(await liveWorkerFor(pool, agent))) {
        console.error(`agent-ledger demo bad-input: ${noLiveWorker(agent)}`);
        return EXIT.error;
      }
      const runId = stagingRunId();
      const inputs = badInputs(agent, runId, count);
      const staged = await stageDemoTasks(pool, cliPrincipal(), {
        what: "bad_input",
        agent,
        inputs: inputs.map((b) => b.input),
        checked: false,
        details: { runId },
      });
      if (!staged.ok) return failure("demo bad-input", staged);
      const progress = startProgress({
        verb: "dead-lettered",
        unit: "tasks",
        total: count,
        forced: opts.progress === true,
      });
      const { ends, stopped } = await interruptible((signal) =>
        waitUntilSettled(pool, staged.value.taskIds, {
          timeoutMs: timeoutS * 1000,
          progress,
          signal,
        }),
      );
      progress.finish();
      const wrong = ends.filter(
        (e) =>
          e.status !== "dead" ||
          e.deadReason !== "non_retryable" ||
          !(e.message ?? "").startsWith("invalid task input"),
      );
      const groups = deadGroups(ends, agent);
      const base = dashboardUrl();
      if (opts.json) {
        printJson({
          runId,
          agent,
          staged: count,
          dead: ends.filter((e) => e.status === "dead").length,
          stopped,
          groups,
          tasks: ends.map((e, i) => ({ id: e.id, status: e.status, fix: inputs[i]?.fix ?? null })),
        });
      } else {
        console.log(
          `Staged ${count} ${agent} tasks with bad input (run ${runId}): now ${statusCounts(ends)}.`,
        );
        for (const g of groups) console.log(`  ${g.count}  ${g.error}\n      ${g.href}`);
        const first = ends[0];
        console.log(
          `Open one${first ? ` (${base}/tasks/${first.id}, fix: ${inputs[0]?.fix})` : ""} and use "Fix the input and replay…". Recorded as demo.staged in the system stream.`,
        );
      }
      if (wrong.length === 0) return EXIT.ok;
      console.error(
        `agent-ledger demo bad-input: ${wrong.length} of ${count} tasks are not dead on their bad input: ${stopped === "timeout" ? `still waiting after ${timeoutS} s (is the worker busy? --timeout waits longer)` : stopped === "interrupted" ? "interrupted" : statusCounts(wrong)}.`,
      );
      return EXIT.problem;
    });
  },
};
