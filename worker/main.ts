// `npm run worker`: one worker process against DATABASE_URL or the embedded database, running
// the agents of the module named by --agents (package.json passes the demo's).
import { parseArgs } from "node:util";
import { errorFields, logger } from "../lib/log";
import { parseWorkerArgs, runWorker, WORKER_USAGE } from "./run-worker";

const { values } = parseArgs({
  options: { concurrency: { type: "string" }, agents: { type: "string" } },
  allowPositionals: false,
});
const opts = parseWorkerArgs(values);
if ("error" in opts) {
  console.error(`worker: ${opts.error}\n\n${WORKER_USAGE}`);
  process.exit(2);
}
try {
  await runWorker(opts);
} catch (err) {
  logger("worker").fatal(errorFields(err), "the worker could not start or stopped on an error");
  process.exitCode = 2;
}
