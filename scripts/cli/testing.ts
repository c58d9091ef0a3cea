// The CLI as scripts see it, for tests: the real binary, spawned against a test database.
import { spawnSync } from "node:child_process";
import os from "node:os";
import path from "node:path";
import type { TestDatabaseUrls } from "../../db/testing/cluster";

export const BIN = path.join(import.meta.dirname, "..", "..", "bin", "agent-ledger.mjs");
/** The actor the CLI records for the person running it. */
export const ACTOR = `cli:${os.userInfo().username}`;
/** Every spawn starts tsx and the CLI afresh (seconds each on a busy machine). */
export const SLOW = { timeout: 600_000 };

export type CliRun = { code: number | null; stdout: string; stderr: string };

export type CliOptions = {
  /** On its stdin (closed at once without it). */
  input?: string;
  /** Over the test database's DATABASE_URL and DATABASE_OWNER_URL: a bad URL, a key. */
  env?: Record<string, string>;
};

/** Runs `agent-ledger <args>` on `db`. */
export function cliOn(db: Pick<TestDatabaseUrls, "appUrl" | "ownerUrl">) {
  return (args: string[], options: CliOptions = {}): CliRun => {
    const r = spawnSync(process.execPath, [BIN, ...args], {
      encoding: "utf8",
      input: options.input ?? "",
      env: {
        ...process.env,
        DATABASE_URL: db.appUrl,
        DATABASE_OWNER_URL: db.ownerUrl,
        ...options.env,
      },
      timeout: 120_000,
    });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  };
}
