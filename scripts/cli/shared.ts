// What every CLI command shares: exit codes, option parsing with a clear error, output.
import { type ParseArgsConfig, parseArgs } from "node:util";
import { z } from "zod";
import { type Command, UsageError } from "./command";

export { type Command, EXIT, UsageError } from "./command";

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

/**
 * Options and positional arguments (`tasks show ID`): exactly the positionals named, in order,
 * each required. A missing or extra one is a usage error that says which.
 */
export function parseCommandLine<T extends Options, const P extends readonly string[]>(
  argv: string[],
  options: T,
  positionals: P,
) {
  let parsed: { values: ReturnType<typeof parseOptions<T>>; positionals: string[] };
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const missing = positionals.slice(parsed.positionals.length);
  if (missing.length > 0) throw new UsageError(`missing ${missing.join(" ")}`);
  const extra = parsed.positionals.slice(positionals.length);
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`);
  const named = Object.fromEntries(positionals.map((p, i) => [p, parsed.positionals[i] ?? ""]));
  return { values: parsed.values, args: named as Record<P[number], string> };
}

/** `value` parsed by `schema`, or a usage error naming the option and what was wrong. */
export function parseOption<T>(schema: z.ZodType<T>, value: unknown, option: string): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    throw new UsageError(`${option}: ${parsed.error.issues.map((i) => i.message).join("; ")}`);
  }
  return parsed.data;
}

/** A whole number written in decimal digits, within [min, max]. */
export function wholeNumber(min: number, max = Number.MAX_SAFE_INTEGER) {
  return z
    .string()
    .regex(/^\d+$/, { error: "must be a whole number" })
    .transform(Number)
    .refine((n) => n >= min && n <= max, { error: `must be from ${min} to ${max}` });
}

/** An instant: ISO 8601 with a zone (2025-06-01T09:00:00Z), or a date, read as UTC midnight. */
export { isoInstantOrDate as isoInstant } from "../../lib/domain/instant";

export async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks).toString("utf8");
}

export const progressOption = { progress: { type: "boolean" } } as const;

/** What progress writes to: stderr, or a stand-in in tests. */
export type ProgressStream = { isTTY?: boolean; write: (text: string) => unknown };

export type Progress = {
  readonly enabled: boolean;
  /** `done` so far; redrawn at most 10 times a second on a terminal, once a second otherwise. */
  update: (done: number) => void;
  /** A line of its own ("seeding the demo…"). */
  note: (text: string) => void;
  /** The final count, on a line of its own. */
  finish: () => void;
};

const count = (n: number) => n.toLocaleString("en-US");

/**
 * Progress of a long run on stderr, never stdout (stdout carries the data or the result). Shown
 * when stderr is a terminal or `--progress` forces it (e.g. into a CI log), never with `quiet`.
 * With a `total` counted up front it says how far along it is.
 */
export function startProgress(opts: {
  verb: string;
  unit: string;
  total?: number;
  forced?: boolean;
  quiet?: boolean;
  stream?: ProgressStream;
  now?: () => number;
}): Progress {
  const stream = opts.stream ?? process.stderr;
  const now = opts.now ?? Date.now;
  const tty = stream.isTTY === true;
  const enabled = opts.quiet !== true && (opts.forced === true || tty);
  const every = tty ? 100 : 1000;
  let last = Number.NEGATIVE_INFINITY;
  let done = 0;
  let drawn = false;
  const text = () => {
    const { total } = opts;
    if (total === undefined) return `${opts.verb} ${count(done)} ${opts.unit}`;
    const pct = total === 0 ? 100 : Math.floor((done / total) * 100);
    return `${opts.verb} ${count(done)} of ${count(total)} ${opts.unit} (${pct}%)`;
  };
  const draw = (final: boolean) => {
    if (tty) stream.write(`\r${text()}\x1b[K${final ? "\n" : ""}`);
    else stream.write(`${text()}\n`);
    drawn = !final;
  };
  return {
    enabled,
    update: (n) => {
      done = n;
      if (!enabled) return;
      const t = now();
      if (t - last < every) return;
      last = t;
      draw(false);
    },
    note: (line) => {
      if (!enabled) return;
      stream.write(`${tty && drawn ? "\r\x1b[K" : ""}${line}\n`);
      drawn = false;
    },
    finish: () => {
      if (enabled) draw(true);
    },
  };
}
