// A command's shape, its exit codes and its usage error: all the dispatcher (program.ts) needs
// before a command loads, so `agent-ledger --help` loads no dependency at all.
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
