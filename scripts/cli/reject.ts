// agent-ledger reject: the task ends as rejected with the reviewer's reason; nothing more runs.
import { rejectTask } from "../../lib/server/commands/reject-task";
import { noteSchema } from "./approve";
import { cliPrincipal, failure } from "./operator";
import { EXIT, parseOption, printJson, UsageError } from "./shared";
import { taskCommand } from "./task-command";

export const rejectCommand = taskCommand({
  name: "reject",
  summary: "Reject a dead or parked task with a reason; it ends as rejected",
  usage: `agent-ledger reject ID --reason T [--version V] [--json]

Rejects a dead task or one awaiting approval: it ends as rejected with your reason, its
pending approvals are rejected and any pending review request is withdrawn. Nothing more
runs. One reviewer is enough. The actor is "cli:<os user>".

Options:
  --reason T   why (required), recorded in the ledger
  --version V  act only if the task is still at version V (as shown by tasks show);
               default: the version read just before rejecting
  --json       print {"id", "status", "version"}
  -h, --help

Exit codes: 0 rejected, 1 refused (no such task, a status that cannot be rejected, the task
changed since version V), 2 could not run (bad options, no database).`,
  options: { reason: { type: "string" } },
  input: (opts) => {
    if (opts.reason === undefined) throw new UsageError("--reason: is required");
    return parseOption(noteSchema, opts.reason, "--reason");
  },
  act: async (pool, task, reason, json) => {
    const result = await rejectTask(pool, cliPrincipal(), {
      taskId: task.id,
      version: task.actOn,
      reason,
    });
    if (!result.ok) return failure("reject", result);
    if (json) printJson(result.value);
    else
      console.log(
        `Rejected task ${task.id}: ${result.value.status} at version ${result.value.version}.`,
      );
    return EXIT.ok;
  },
});
