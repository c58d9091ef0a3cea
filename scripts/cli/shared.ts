// What every CLI command shares: exit codes, option parsing with a clear error, output.
import { type ParseArgsConfig, parseArgs } from "node:util";

export const EXIT = { ok: 0, problem: 1, error: 2 } as const;

export class UsageError extends Error {
  override name = "UsageError";
}

export type Command = {
  name: string;
  summary: string;
  usage: string;
  /** The help for these arguments (a subcommand's own page), when it differs from `usage`. */
  usageFor?: (argv: string[]) => string;
  run: (argv: string[]) => Promise<number>;
};

type Options = NonNullable<ParseArgsConfig["options"]>;

export function parseOptions<T extends Options>(argv: string[], options: T) {
  try {
    return parseArgs({ args: argv, options, allowPositionals: false, strict: true }).values;
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export const helpOption = { help: { type: "boolean", short: "h" } } as const;
export const jsonOption = { json: { type: "boolean" } } as const;

/** One subcommand of a group (`users add`): its synopsis, what it does, and how it runs. */
export type Subcommand = {
  name: string;
  /** Options after the name, e.g. "--email E --role R [--json]". */
  synopsis: string;
  /** What it does, in a sentence or a few; wrapped as written. */
  description: string;
  run: (argv: string[]) => Promise<number>;
};

/**
 * A command made of subcommands (`users`, `tokens`, `tasks`): one dispatcher, one usage text,
 * and `agent-ledger <command> <subcommand> --help` printing that subcommand's own page.
 */
export function commandGroup(spec: {
  name: string;
  summary: string;
  subcommands: Subcommand[];
  /** Paragraphs after the subcommands: vocabulary, exit codes, … */
  notes: string;
}): Command {
  const find = (name: string | undefined) => spec.subcommands.find((s) => s.name === name);
  const indent = (text: string) =>
    text
      .split("\n")
      .map((line) => `      ${line}`)
      .join("\n");
  const usage = `agent-ledger ${spec.name} <subcommand> [options]

Subcommands:
${spec.subcommands.map((s) => `  ${s.name} ${s.synopsis}\n${indent(s.description)}`).join("\n")}

${spec.notes}

Options:
  --json    print the result as JSON
  -h, --help

Run agent-ledger ${spec.name} <subcommand> --help for one subcommand.`;
  return {
    name: spec.name,
    summary: spec.summary,
    usage,
    usageFor: ([sub]) => {
      const found = find(sub);
      return found
        ? `agent-ledger ${spec.name} ${found.name} ${found.synopsis}\n\n${found.description}\n\n${spec.notes}`
        : usage;
    },
    run: async ([sub, ...rest]) => {
      const found = find(sub);
      if (!found) {
        throw new UsageError(
          sub
            ? `unknown subcommand "${sub}"`
            : `name a subcommand: ${spec.subcommands.map((s) => s.name).join(", ")}`,
        );
      }
      return found.run(rest);
    },
  };
}
