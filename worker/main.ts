// `npm run worker`: one worker process against DATABASE_URL or the embedded database.
import { parseArgs } from "node:util";
import { SchemaVersionError } from "../db/schema-version";
import { errorFields, logger } from "../lib/log";
import { runWorker } from "./run-worker";

const { values } = parseArgs({
  options: { concurrency: { type: "string", default: "4" } },
  allowPositionals: false,
});
const concurrency = Number(values.concurrency);
if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 256) {
  console.error(
    `worker: --concurrency must be a whole number from 1 to 256, got "${values.concurrency}"`,
  );
  process.exit(2);
}
try {
  await runWorker({ concurrency });
} catch (err) {
  // A schema this code does not know is said as its own message: it tells what to run.
  if (err instanceof SchemaVersionError) {
    logger("worker").fatal({ schema: err.check.state }, err.message);
  } else {
    logger("worker").fatal(errorFields(err), "the worker could not start or stopped on an error");
  }
  process.exitCode = 2;
}
