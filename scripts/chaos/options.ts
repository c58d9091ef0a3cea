// The harness's command line, checked with zod; a bad option exits 2 naming it.
import { parseArgs } from "node:util";
import { z } from "zod";
import { describeIssues } from "../../lib/domain/zod-issues";

export const USAGE = `npm run chaos -- [options]

Runs the example agents on W worker processes against a throwaway PostgreSQL and the demo
receivers (a process of their own), kill -9s workers at random moments while they hold work
(and lets fault points armed in some workers kill them at the runtime's named boundaries),
restarting each at once, then waits until every task is terminal or parked, stops the workers
and checks the promises. Tasks arrive over the run, a share up front and the rest as the kills
go on, so the kills land on work in progress. Prints one JSON line.

Exit 1, with a "chaos: FAIL:" line on stderr for each: an intent delivered twice, a lost task
(neither terminal nor held), a broken hash chain, an effect recorded as succeeded that no
receiver got, a delivery under a key the database never claimed, or a timeout. Exit 2: the
harness could not run; 130: interrupted. A failed run keeps the processes' output and the
affected tasks' ledger in a folder it names.

Options:
  --tasks N          tasks to enqueue (default 60)
  --workers W        worker processes kept running (default 3)
  --kills K          kill -9s the harness itself sends; fault-point deaths come on top (default 10)
  --concurrency C    tasks per worker at once (default 4)
  --lease-ms MS      the workers' task and effect lease (default 1000)
  --life-ms MS       mean time a worker runs (once ready) before the harness kills it; each
                     draws its moment uniformly from [0, 2 × MS] (default 1500)
  --seed S           seed for the harness's random choices (default: random, printed)
  --timeout-s T      give up when no kill was possible for T s, or when tasks still move T s
                     after the last kill (default 300)
  --json-only        print the JSON line and nothing else, failures and warnings aside
  --keep-logs        keep the workers' and receivers' output (kept anyway when the run fails)
  -h, --help`;

const count = (min: number, max: number) =>
  z.coerce
    .number({ message: "must be a number" })
    .int("must be a whole number")
    .min(min, `must be at least ${min}`)
    .max(max, `must be at most ${max}`);

const optionsSchema = z.object({
  tasks: count(1, 100_000).default(60),
  workers: count(1, 32).default(3),
  kills: count(0, 1_000_000).default(10),
  concurrency: count(1, 64).default(4),
  "lease-ms": count(100, 60_000).default(1_000),
  "life-ms": count(0, 600_000).default(1_500),
  seed: count(0, 2 ** 32 - 1).optional(),
  "timeout-s": count(1, 86_400).default(300),
  "json-only": z.boolean().default(false),
  "keep-logs": z.boolean().default(false),
  help: z.boolean().default(false),
});
export type Options = z.infer<typeof optionsSchema>;

export class UsageError extends Error {
  override name = "UsageError";
}

export function parseOptions(argv: readonly string[]): Options {
  let values: Record<string, unknown>;
  try {
    values = parseArgs({
      args: [...argv],
      options: {
        tasks: { type: "string" },
        workers: { type: "string" },
        kills: { type: "string" },
        concurrency: { type: "string" },
        "lease-ms": { type: "string" },
        "life-ms": { type: "string" },
        seed: { type: "string" },
        "timeout-s": { type: "string" },
        "json-only": { type: "boolean" },
        "keep-logs": { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
      allowPositionals: false,
    }).values;
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
  const parsed = optionsSchema.safeParse(values);
  if (!parsed.success) {
    throw new UsageError(describeIssues(parsed.error, "--"));
  }
  return parsed.data;
}
