import { parseWorkerArgs, runWorker, WORKER_USAGE } from "../../worker/run-worker";
import { type Command, EXIT, helpOption, parseOptions, UsageError } from "./shared";

export const workerCommand: Command = {
  name: "worker",
  summary: "Run a worker process with the agents your module exports",
  usage: `agent-ledger worker --agents MODULE [--concurrency N]

Runs one worker: it claims and runs tasks until SIGTERM or SIGINT. Any number of workers can
share one database. Example: agent-ledger worker --agents ./dist/agents.js

${WORKER_USAGE}
  -h, --help

Exit codes: 0 stopped by a signal after handing back its work, 2 could not run (bad
options, no database, an agents module that does not load).`,
  run: async (argv) => {
    const opts = parseWorkerArgs(
      parseOptions(argv, {
        ...helpOption,
        concurrency: { type: "string", default: "4" },
        agents: { type: "string" },
      }),
    );
    if ("error" in opts) throw new UsageError(opts.error);
    await runWorker(opts);
    return EXIT.ok;
  },
};
