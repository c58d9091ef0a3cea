// agent-ledger approve: a parked gated effect may act, or a dead task resumes from its last
// completed step with a fresh attempt budget. Money takes two different reviewers.
import { z } from "zod";
import { approveTask } from "../../lib/server/commands/approve-task";
import { cliPrincipal, failure } from "./operator";
import { EXIT, parseOption, printJson } from "./shared";
import { taskCommand } from "./task-command";

export const noteSchema = z
  .string()
  .trim()
  .min(1, { error: "must not be empty" })
  .max(2000, { error: "must be at most 2000 characters" });

export const approveCommand = taskCommand({
  name: "approve",
  summary: "Approve a parked effect, or resume a dead task (money: two reviewers)",
  usage: `agent-ledger approve ID [--note T] [--version V] [--json]

Approves a task awaiting approval (the parked effect may act, with exactly the arguments
shown by tasks show) or resumes a dead task from its last completed step with a fresh
attempt budget.

Two-person rule: when the approval or the resume can make a tool that moves money act, the
first approval is recorded and the task stays where it is; a second, different reviewer
approves it too (the same command run by another person, or the dashboard). The actor is
"cli:<os user>".

Options:
  --note T     why, recorded with the approval
  --version V  act only if the task is still at version V (as shown by tasks show);
               default: the version read just before approving
  --json       print {"id", "status", "version", "waitingFor"}; waitingFor is set when a
               second reviewer must still confirm
  -h, --help

Exit codes: 0 approved or first approval recorded, 1 refused (no such task, a status that
cannot be approved, the task changed since version V, the same reviewer twice), 2 could not
run (bad options, no database).`,
  options: { note: { type: "string" } },
  input: (opts) =>
    opts.note === undefined ? undefined : parseOption(noteSchema, opts.note, "--note"),
  act: async (pool, task, note, json) => {
    const result = await approveTask(pool, cliPrincipal(), {
      taskId: task.id,
      version: task.actOn,
      note,
    });
    if (!result.ok) return failure("approve", result);
    const r = result.value;
    const id = task.id;
    if (json) printJson(r);
    else if (r.waitingFor?.kind === "approval") {
      console.log(
        `Recorded ${r.waitingFor.requestedBy}'s approval of task ${id} as the first of two: it moves money, so a second, different reviewer must approve it too. The task is still ${r.status}.`,
      );
    } else if (r.waitingFor) {
      console.log(
        `Recorded ${r.waitingFor.requestedBy}'s request to resume task ${id}${r.waitingFor.requestId === null ? "" : ` (request ${r.waitingFor.requestId})`}: it can reach money, so a second, different reviewer must confirm it. The task is still ${r.status}.`,
      );
    } else {
      console.log(`Approved task ${id}: ${r.status} at version ${r.version}.`);
    }
    return EXIT.ok;
  },
});
