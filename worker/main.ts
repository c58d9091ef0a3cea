// `npm run worker`: one worker process against DATABASE_URL or the embedded database, running
// the agents of the module named by --agents (package.json passes the demo's).
import { parseArgs } from "node:util";
import { SchemaVersionError } from "../db/schema-version";
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
  // A schema this code does not know is said as its own message: it tells what to run.
  if (err instanceof SchemaVersionError) {
    logger("worker").fatal({ schema: err.check.state }, err.message);
  } else {
    logger("worker").fatal(errorFields(err), "the worker could not start or stopped on an error");
  }
  process.exitCode = 2;
}
