// What a module of agents receives when `agent-ledger worker --agents <module>` loads it and its
// `agents` (or default) export, or its `model` export, is a function.
import type pg from "pg";

export type AgentsModuleContext = {
  /** process.env as the worker started with it: the module parses what it needs. */
  env: Record<string, string | undefined>;
  /** The worker's pool, for agents whose tools read the database at the moment of acting. */
  pool: pg.Pool;
};
