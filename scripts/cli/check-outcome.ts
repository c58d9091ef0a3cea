// agent-ledger check-outcome: asks a worker to check an unknown outcome with the provider (the
// tool's reconcile), as the dashboard's "Check with the provider" does, and with --wait prints
// the answer. The answer changes nothing: resolving the outcome is still a reviewer's call.
import { z } from "zod";
import { requestReconcile } from "../../lib/server/commands/request-reconcile";
import { latestChecks, type ReconcileCheck } from "../../lib/server/review/reconcile";
import { cliPrincipal, compactJson, failure, parseTaskId, withAppDatabase } from "./operator";
import {
  type Command,
  EXIT,
  helpOption,
  jsonOption,
  parseCommandLine,
  parseOption,
  printJson,
  UsageError,
  wholeNumber,
} from "./shared";

const keySchema = z.string().regex(/^[0-9a-f]{64}$/, "must be an effect key (64 hex digits)");

function describeAnswer(check: ReconcileCheck): string {
  const answer = check.answer;
  if (check.status === "pending" || !answer) return "still waiting for a worker";
  if ("error" in answer) return `the provider could not be asked: ${answer.error}`;
  return answer.happened
    ? `the provider says it happened: ${compactJson(answer.result)}`
    : "the provider says it did not happen";
}

export const checkOutcomeCommand: Command = {
  name: "check-outcome",
  summary: "Ask the provider (a worker runs the tool's reconcile) whether an effect happened",
  usage: `agent-ledger check-outcome ID --key K [--wait S] [--json]

For a dead task with an effect whose outcome is unknown: records a check that a worker running
the task's agent answers by calling the tool's reconcile with the effect's key and arguments.
The answer is recorded in the task's ledger (effect.reconciled or effect.reconcile_failed)
and shown on the task page; it does not resolve the outcome. A check already waiting for
this effect is not asked twice. The actor is "cli:<os user>".

Options:
  --key K    the effect's key (as shown by tasks show)
  --wait S   wait up to S seconds for the worker's answer and print it (default: do not wait)
  --json     print {"id", "checkId", "created"} and, with --wait, "check"
  -h, --help

Exit codes: 0 asked (and with --wait, answered), 1 refused (no such task or effect, not an
unknown outcome, a tool without reconcile) or no answer within --wait, 2 could not run.`,
  run: async (argv) => {
    const { values, args } = parseCommandLine(
      argv,
      { ...helpOption, ...jsonOption, key: { type: "string" }, wait: { type: "string" } },
      ["ID"] as const,
    );
    const taskId = parseTaskId(args.ID);
    if (values.key === undefined) throw new UsageError("--key: is required");
    const key = parseOption(keySchema, values.key, "--key");
    const waitS =
      values.wait === undefined ? 0 : parseOption(wholeNumber(1, 600), values.wait, "--wait");
    return withAppDatabase("check-outcome", async (pool) => {
      const result = await requestReconcile(pool, cliPrincipal(), { taskId, key });
      if (!result.ok) return failure("check-outcome", result);
      const { checkId, created } = result.value;
      if (waitS === 0) {
        if (values.json) printJson(result.value);
        else
          console.log(
            `${created ? "Asked" : "Already asked"}: check ${checkId} waits for a worker running the task's agent; its answer shows on the task page.`,
          );
        return EXIT.ok;
      }
      const until = Date.now() + waitS * 1000;
      for (;;) {
        const check = (await latestChecks(pool, taskId)).get(key);
        const done = check && check.id === checkId && check.status !== "pending";
        if (done || Date.now() >= until) {
          if (values.json) printJson({ ...result.value, check: check ?? null });
          else console.log(`Check ${checkId}: ${check ? describeAnswer(check) : "not found"}.`);
          return done ? EXIT.ok : EXIT.problem;
        }
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    });
  },
};
