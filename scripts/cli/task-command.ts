// What the commands that act on one task share (approve, reject, replay): `ID [--version V]
// [--json]` with their own options, all checked before the database is opened; then the task as
// it is just before acting ("no task" when there is none) and the version to act on.
import type { ParseArgsConfig, parseArgs } from "node:util";
import type pg from "pg";
import { z } from "zod";
import type { TaskStatus } from "../../lib/domain/task-states";
import { noSuchTask, parseTaskId, readTaskVersion, withAppDatabase } from "./operator";
import {
  type Command,
  helpOption,
  jsonOption,
  parseCommandLine,
  parseOption,
  wholeNumber,
} from "./shared";

type Options = NonNullable<ParseArgsConfig["options"]>;

const common = { ...helpOption, ...jsonOption, version: { type: "string" } } as const;
/** The common options as parsed (the generic values type does not expose them by name). */
const commonValues = z.object({ json: z.boolean().optional(), version: z.string().optional() });

export type OptionValues<T extends Options> = ReturnType<
  typeof parseArgs<{ options: typeof common & T; allowPositionals: true; strict: true }>
>["values"];

export type TaskNow = {
  id: string;
  status: TaskStatus;
  /** The version read just before acting. */
  version: number;
  /** The version the command acts on: --version when pinned, else the one just read. */
  actOn: number;
};

export function taskCommand<const T extends Options, I>(spec: {
  name: string;
  summary: string;
  usage: string;
  options: T;
  /** The command's own options, as its input; a usage error before any database is opened. */
  input: (opts: OptionValues<T>) => I;
  act: (pool: pg.Pool, task: TaskNow, input: I, json: boolean) => Promise<number>;
}): Command {
  return {
    name: spec.name,
    summary: spec.summary,
    usage: spec.usage,
    run: async (argv) => {
      const { values, args } = parseCommandLine(argv, { ...common, ...spec.options }, [
        "ID",
      ] as const);
      const id = parseTaskId(args.ID);
      const input = spec.input(values);
      const { version, json } = commonValues.parse(values);
      const pinned =
        version === undefined ? undefined : parseOption(wholeNumber(1), version, "--version");
      return withAppDatabase(spec.name, async (pool) => {
        const now = await readTaskVersion(pool, id);
        if (!now) return noSuchTask(spec.name, id);
        return spec.act(pool, { id, ...now, actOn: pinned ?? now.version }, input, json === true);
      });
    },
  };
}
