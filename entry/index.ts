// `agent-ledger`: the package's main entry point (tsup builds it into dist/index.js and its
// .d.ts). Define agents and tools, enqueue tasks, run a worker in your own process, migrate.

export type { MigrateResult } from "../db/migrate";
export { migrate } from "../db/migrate";
export {
  assertSchemaCurrent,
  checkSchema,
  type SchemaCheck,
  SchemaVersionError,
} from "../db/schema-version";
export * from "../lib/sdk/index";
export type { StartWorkerOptions, WorkerHandle } from "../worker/start-worker";
export { startWorker } from "../worker/start-worker";
