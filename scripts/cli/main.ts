// agent-ledger: the command line. Exit codes scripts can trust: 0 ok, 1 a problem was found
// (e.g. verify found tampering), 2 the command could not run (bad options, no database).
import { EnvError } from "../../lib/env";
import { checkpointCommand } from "./checkpoint";
import { migrateCommand } from "./migrate";
import { seedCommand } from "./seed";
import { type Command, EXIT, UsageError } from "./shared";
import { tokensCommand } from "./tokens";
import { usersCommand } from "./users";
import { verifyCommand } from "./verify";
import { workerCommand } from "./worker";

const commands: Command[] = [
  migrateCommand,
  verifyCommand,
  checkpointCommand,
  seedCommand,
  workerCommand,
  usersCommand,
  tokensCommand,
];

function mainUsage(): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return `agent-ledger <command> [options]

Commands:
${commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join("\n")}

Run agent-ledger <command> --help for a command's options.
Without DATABASE_URL every command uses the embedded database in ./.data (starting it if needed).
Exit codes: 0 ok, 1 a problem was found, 2 could not run.`;
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

process.exitCode = await main(process.argv.slice(2));
