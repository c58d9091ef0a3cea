// What the admin commands (users, tokens) share: who the operator is in the ledger, a pool on
// the app database for one command, and plain-text tables.
import os from "node:os";
import type pg from "pg";
import { createDb, createPool, type Db } from "../../db/client";
import { openDatabase } from "../../db/open";
import type { CommandResult } from "../../lib/server/commands/task-guard";
import { EXIT } from "./shared";

/** The ledger actor for changes made from this shell: "cli:<os user>". */
export function cliActor(): string {
  try {
    return `cli:${os.userInfo().username || "unknown"}`;
  } catch {
    // No passwd entry for this uid (some containers).
    return `cli:uid-${process.getuid?.() ?? "unknown"}`;
  }
}

export async function withAppDatabase<T>(
  name: string,
  fn: (pool: pg.Pool, db: Db) => Promise<T>,
): Promise<T> {
  const target = await openDatabase();
  const pool = createPool(target.appUrl, { max: 2, applicationName: `agent-ledger-${name}` });
  try {
    // Reach the server first, so an unreachable one is reported as such rather than as the
    // first query that failed.
    await pool.query("select 1");
    return await fn(pool, createDb(pool));
  } finally {
    await pool.end();
    await target.release();
  }
}

/** A refused command: 2 when the input was invalid (could not run), 1 otherwise. */
export function failure(command: string, result: Extract<CommandResult<unknown>, { ok: false }>) {
  console.error(`agent-ledger ${command}: ${result.message}`);
  return result.code === "invalid" ? EXIT.error : EXIT.problem;
}

/** Columns padded to their widest cell; the last column is left ragged. */
export function formatTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  return [line(header), ...rows.map(line)].join("\n");
}
