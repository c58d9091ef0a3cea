// What the operator commands share: who the operator is in the ledger and to the queries, a
// pool on the app database for one command, task ids and versions, and plain-text tables.
import os from "node:os";
import type pg from "pg";
import { createDb, createPool, type Db } from "../../db/client";
import { openDatabase } from "../../db/open";
import { operator, type Principal, SCOPES, type Viewer } from "../../lib/domain/access";
import type { CommandFailure } from "../../lib/domain/command-result";
import type { TaskStatus } from "../../lib/domain/task-states";
import { logger } from "../../lib/log";
import { taskIdSchema } from "../../lib/server/queries/get-task-detail";
import { EXIT, helpOption, jsonOption, parseOption, parseOptions, printJson } from "./shared";

/** The ledger actor for changes made from this shell: "cli:<os user>". */
export function cliActor(): string {
  try {
    return `cli:${os.userInfo().username || "unknown"}`;
  } catch {
    // No passwd entry for this uid (some containers).
    return `cli:uid-${process.getuid?.() ?? "unknown"}`;
  }
}

/**
 * Who the queries see behind the CLI: the operator at this shell, with every scope (whoever can
 * reach the database with its credentials can read and change everything anyway). It lives
 * here, under scripts/, so the web app can never import it; it is never an actor (cliActor is).
 */
export function operatorViewer(): Viewer {
  return { kind: "token", id: "cli", name: cliActor(), scopes: new Set(SCOPES) };
}

/** Whom the commands act for from this shell: the operator, as cliActor() in the ledger. */
export function cliPrincipal(): Principal {
  return operator(cliActor());
}

/** A task id argument (any UUID, any case), or a usage error saying what one looks like. */
export function parseTaskId(value: string): string {
  return parseOption(taskIdSchema, value, `"${value}"`);
}

/** The task's status and version now, or null when there is no such task. */
export async function readTaskVersion(
  pool: pg.Pool,
  taskId: string,
): Promise<{ status: TaskStatus; version: number } | null> {
  const { rows } = await pool.query<{ status: TaskStatus; version: number }>(
    "select status, version from tasks where id = $1",
    [taskId],
  );
  return rows[0] ?? null;
}

/** "no task <id>" on stderr, exit 1. */
export function noSuchTask(command: string, taskId: string): number {
  console.error(`agent-ledger ${command}: no task ${taskId}`);
  return EXIT.problem;
}

/** An ISO 8601 time as "2025-06-01 09:00:00" (UTC), for tables. */
export function shortTime(iso: string | null): string {
  return iso ? iso.slice(0, 19).replace("T", " ") : "";
}

/** JSON on one line, for a table cell or a field of a human report. */
export function compactJson(value: unknown): string {
  return JSON.stringify(value) ?? "null";
}

export async function withAppDatabase<T>(
  name: string,
  fn: (pool: pg.Pool, db: Db) => Promise<T>,
): Promise<T> {
  const target = await openDatabase();
  const pool = createPool(target.appUrl, {
    max: 2,
    applicationName: `agent-ledger-${name}`,
    log: logger("db"),
  });
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
export function failure(command: string, result: CommandFailure) {
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

/**
 * A `list` subcommand (alerts, tokens, users): `[--json]`; every row as JSON, or a line saying
 * there are none yet and how to make one, or a table.
 */
export function listSubcommand<R>(spec: {
  command: string;
  read: (db: Db) => Promise<R[]>;
  /** What an empty list prints, with the command that makes the first row. */
  none: string;
  header: string[];
  cells: (row: R) => string[];
}): (argv: string[]) => Promise<number> {
  return async (argv) => {
    const opts = parseOptions(argv, { ...helpOption, ...jsonOption });
    return withAppDatabase(spec.command, async (_pool, db) => {
      const rows = await spec.read(db);
      if (opts.json) printJson(rows);
      else if (rows.length === 0) console.log(spec.none);
      else console.log(formatTable(spec.header, rows.map(spec.cells)));
      return EXIT.ok;
    });
  };
}
