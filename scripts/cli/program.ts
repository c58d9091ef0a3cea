// The agent-ledger commands and their dispatcher, apart from the entry point (main.ts) so tests
// can run the dispatcher in-process. Exit codes scripts can trust: 0 ok, 1 a problem was found
// or the command was refused, 2 the command could not run (bad options, no database).
import { EnvError } from "../../lib/env";
import { alertsCommand } from "./alerts";
import { approveCommand } from "./approve";
import { checkOutcomeCommand } from "./check-outcome";
import { checkpointCommand } from "./checkpoint";
import { dashboardCommand } from "./dashboard";
import { deadLettersCommand } from "./dead-letters";
import { demoCommand } from "./demo";
import { enqueueCommand } from "./enqueue";
import { exportCommand } from "./export";
import { migrateCommand } from "./migrate";
import { rejectCommand } from "./reject";
import { replayCommand } from "./replay";
import { seedCommand } from "./seed";
import { type Command, EXIT, UsageError } from "./shared";
import { tasksCommand } from "./tasks";
import { tokensCommand } from "./tokens";
import { usersCommand } from "./users";
import { verifyCommand } from "./verify";
import { workerCommand } from "./worker";

export const commands: Command[] = [
  migrateCommand,
  seedCommand,
  workerCommand,
  dashboardCommand,
  enqueueCommand,
  tasksCommand,
  deadLettersCommand,
  replayCommand,
  approveCommand,
  rejectCommand,
  checkOutcomeCommand,
  exportCommand,
  verifyCommand,
  checkpointCommand,
  usersCommand,
  tokensCommand,
  alertsCommand,
  demoCommand,
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
  const command = commands.find((c) => c.name === name);
  if (!command) {
    console.error(`agent-ledger: unknown command "${name}"\n\n${mainUsage()}`);
    return EXIT.error;
  }
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
    } else if (err instanceof EnvError) {
      console.error(`agent-ledger ${name}: ${err.message}`);
    } else {
      console.error(`agent-ledger ${name}: ${(err as Error).message}`);
    }
    return EXIT.error;
  }
}
