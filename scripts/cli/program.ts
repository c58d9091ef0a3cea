// The agent-ledger commands and their dispatcher, apart from the entry point (main.ts) so tests
// can run the dispatcher in-process. Exit codes scripts can trust: 0 ok, 1 a problem was found
// or the command was refused, 2 the command could not run (bad options, no database).
import { type Command, EXIT, UsageError } from "./command";

/**
 * Every command by name and summary; its module loads only when it runs (or shows its page), so
 * `agent-ledger --help` and each command start without the others' dependencies.
 */
export type CommandEntry = { name: string; summary: string; load: () => Promise<Command> };

export const commands: CommandEntry[] = [
  {
    name: "migrate",
    summary: "Apply database migrations (as DATABASE_OWNER_URL, else DATABASE_URL)",
    load: async () => (await import("./migrate")).migrateCommand,
  },
  {
    name: "seed",
    summary: "Seed the demo data (once per database)",
    load: async () => (await import("./seed")).seedCommand,
  },
  {
    name: "worker",
    summary: "Run a worker process with the agents your module exports",
    load: async () => (await import("./worker")).workerCommand,
  },
  {
    name: "dashboard",
    summary: "Run the built web dashboard against DATABASE_URL (a service beside your workers)",
    load: async () => (await import("./dashboard")).dashboardCommand,
  },
  {
    name: "enqueue",
    summary: "Enqueue a task for an agent (idempotent with --key)",
    load: async () => (await import("./enqueue")).enqueueCommand,
  },
  {
    name: "events",
    summary: "Send an event to the tasks waiting for it (idempotent with --key)",
    load: async () => (await import("./events")).eventsCommand,
  },
  {
    name: "tasks",
    summary: "List tasks; show one task with its steps, effects and ledger timeline",
    load: async () => (await import("./tasks")).tasksCommand,
  },
  {
    name: "dead-letters",
    summary: "Dead tasks grouped by reason and error, oldest waiting first",
    load: async () => (await import("./dead-letters")).deadLettersCommand,
  },
  {
    name: "replay",
    summary: "Replay a dead or parked task from step N (--dry-run: preview only)",
    load: async () => (await import("./replay")).replayCommand,
  },
  {
    name: "approve",
    summary: "Approve a parked effect, or resume a dead task (money: two reviewers)",
    load: async () => (await import("./approve")).approveCommand,
  },
  {
    name: "reject",
    summary: "Reject a dead or parked task with a reason; it ends as rejected",
    load: async () => (await import("./reject")).rejectCommand,
  },
  {
    name: "check-outcome",
    summary: "Ask the provider (a worker runs the tool's reconcile) whether an effect happened",
    load: async () => (await import("./check-outcome")).checkOutcomeCommand,
  },
  {
    name: "export",
    summary: "Export ledger entries as JSON Lines or CSV (streamed)",
    load: async () => (await import("./export")).exportCommand,
  },
  {
    name: "verify",
    summary:
      "Recompute every hash chain (or check an archive); exit 1 naming the first broken entry",
    load: async () => (await import("./verify")).verifyCommand,
  },
  {
    name: "checkpoint",
    summary: "Append a signed checkpoint of every stream head to the system stream",
    load: async () => (await import("./checkpoint")).checkpointCommand,
  },
  {
    name: "archive",
    summary: "Write the streams of tasks closed before a date to signed files, then freeze them",
    load: async () => (await import("./archive")).archiveCommand,
  },
  {
    name: "users",
    summary:
      "Add people who may sign in; list them; change their role; disable or enable them; lift a sign-in lock",
    load: async () => (await import("./users")).usersCommand,
  },
  {
    name: "tokens",
    summary: "Create API tokens (shown once), list them, revoke them",
    load: async () => (await import("./tokens")).tokensCommand,
  },
  {
    name: "alerts",
    summary: "Alert rules (create, list, update, enable, disable, delete, retry) and the evaluator",
    load: async () => (await import("./alerts")).alertsCommand,
  },
  {
    name: "schedules",
    summary: "Cron schedules per agent (list, add, pause, resume, remove)",
    load: async () => (await import("./schedules")).schedulesCommand,
  },
  {
    name: "demo",
    summary: "Stage an outage or bad inputs the worker dead-letters for real (demo data)",
    load: async () => (await import("./demo")).demoCommand,
  },
];

export function mainUsage(): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return `agent-ledger <command> [options]

Commands:
${commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join("\n")}

Run agent-ledger <command> --help for a command's options.
Without DATABASE_URL every command uses the embedded database in ./.data (starting it if needed).
Changes made from the CLI are recorded in the ledger with the actor "cli:<os user>".
Exit codes: 0 ok, 1 a problem was found or the command was refused, 2 could not run (bad
options, bad environment, no database).`;
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === "--help" || name === "-h" || name === "help") {
    console.log(mainUsage());
    return name ? EXIT.ok : EXIT.error;
  }
  const entry = commands.find((c) => c.name === name);
  if (!entry) {
    console.error(`agent-ledger: unknown command "${name}"\n\n${mainUsage()}`);
    return EXIT.error;
  }
  const command = await entry.load();
  const usage = command.usageFor?.(rest) ?? command.usage;
  if (rest.includes("--help") || rest.includes("-h")) {
    console.log(usage);
    return EXIT.ok;
  }
  try {
    return await command.run(rest);
  } catch (err) {
    if (err instanceof UsageError) {
      console.error(`agent-ledger ${name}: ${err.message}\n\n${usage}`);
    } else {
      console.error(`agent-ledger ${name}: ${(err as Error).message}`);
    }
    return EXIT.error;
  }
}
