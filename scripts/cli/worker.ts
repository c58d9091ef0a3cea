import { runWorker } from "../../worker/run-worker";
import { type Command, EXIT, helpOption, parseOptions, UsageError } from "./shared";

export const workerCommand: Command = {
  name: "worker",
  summary: "Run a worker process (same as npm run worker)",
  usage: `agent-ledger worker [--concurrency N]

Runs one worker: it claims and runs tasks until SIGTERM or SIGINT. Any number of workers can
share one database.

Options:
  --concurrency N   tasks run at once (default 4)
  -h, --help

Exit codes: 0 stopped by a signal after handing back its work, 2 could not run (bad
options, no database).`,
  run: async (argv) => {
    const opts = parseOptions(argv, {
      ...helpOption,
      concurrency: { type: "string", default: "4" },
    });
    const concurrency = Number(opts.concurrency);
    if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 256) {
      throw new UsageError(
        `--concurrency must be a whole number from 1 to 256, got "${opts.concurrency}"`,
      );
    }
    await runWorker({ concurrency });
    return EXIT.ok;
  },
};
