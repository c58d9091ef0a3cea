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
