// Test fixtures for archived tasks (issue 23): a task closed at a given time with a ledger stream
// and one effect, and an archive of every task closed before a date, written to a temporary
// directory with a fresh signing key, as `agent-ledger archive` does.
import { type KeyObject, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type pg from "pg";
import { withTransaction } from "../../../db/client";
import { GENESIS_HASH } from "../../domain/hash";
import { appendLedger, taskStream } from "./append-ledger";
import { archiveLedger } from "./archive";
import { generateSigningKey, parsePrivateKey } from "./signing";

/** A task in `status` since `closedAt`, with two ledger entries and one succeeded effect. */
export async function closedTask(
  pool: pg.Pool,
  status: "succeeded" | "rejected" | "cancelled",
  closedAt: string,
): Promise<{ id: string; key: string }> {
  const { rows } = await pool.query<{ id: string }>(
    `insert into tasks (agent, input, status, status_changed_at, created_by)
     values ('archive-test', '{"to":"a@example.com"}', $1, $2, 'test') returning id`,
    [status, closedAt],
  );
  const id = rows[0]?.id;
  if (!id) throw new Error("no task");
  const key = randomBytes(32).toString("hex");
  await pool.query(
    `insert into effects (key, task_id, step_seq, tool, intent, args, fingerprint, status, result, attempts, completed_at)
     values ($1, $2, 1, 'send_email', '{"to":"a@example.com"}', '{"to":"a@example.com"}', $1,
             'succeeded', '{"messageId":"<m@x>"}', 1, now())`,
    [key, id],
  );
  await withTransaction(pool, (c) =>
    appendLedger(c, taskStream(id), [
      { kind: "effect.started", actor: "worker:1", taskId: id, key, data: { tool: "send_email" } },
      { kind: "effect.succeeded", actor: "worker:1", taskId: id, key, data: { result: {} } },
    ]),
  );
  return { id, key };
}

/**
 * A task whose stream was opened at `openedAt` (its head row made with that time, so its entries
 * go to that month's partition), with `n` step entries: succeeded at `closedAt` (by default when
 * it was opened), or still running.
 */
export async function taskOpenedAt(
  pool: pg.Pool,
  openedAt: string,
  n: number,
  opts: { running?: boolean; closedAt?: string } = {},
): Promise<string> {
  const { rows } = await pool.query<{ id: string }>(
    `insert into tasks (agent, input, status, status_changed_at, created_by, lease_owner, lease_expires_at)
     values ('archive-test', '{}', $1, $2, 'test',
             case when $1 = 'running' then 'w1' end,
             case when $1 = 'running' then now() + interval '1 hour' end) returning id`,
    [opts.running ? "running" : "succeeded", opts.closedAt ?? openedAt],
  );
  const id = rows[0]?.id;
  if (!id) throw new Error("no task");
  await pool.query(
    "insert into ledger_streams (stream, head_seq, head_hash, created_at) values ($1, 0, $2, $3)",
    [taskStream(id), GENESIS_HASH, openedAt],
  );
  await withTransaction(pool, (c) =>
    appendLedger(
      c,
      taskStream(id),
      Array.from({ length: n }, (_, i) => ({
        kind: "step.completed",
        actor: "worker:1",
        taskId: id,
        data: { i },
      })),
    ),
  );
  return id;
}

/**
 * Archives every task stream closed before `before`; the archive's id and its freeze time.
 * Given `into` (a LEDGER_ARCHIVE_DIR), the files are kept there in a subdirectory `name`;
 * else they are written to a temporary directory and removed.
 */
export async function archiveClosedTasks(
  pool: pg.Pool,
  before: Date,
  keep?: { into: string; name: string; signingKey: KeyObject },
  /** Detach no month (the entries stay in the database). */
  keepEntries = false,
): Promise<{ archiveId: string; at: string }> {
  const root = keep?.into ?? mkdtempSync(path.join(tmpdir(), "agent-ledger-archived-"));
  try {
    const r = await archiveLedger(pool, {
      before,
      dir: path.join(root, keep?.name ?? "archive"),
      actor: "test",
      signingKey: keep?.signingKey ?? parsePrivateKey(generateSigningKey().privateKey),
      keepEntries,
    });
    if (r.outcome !== "archived") throw new Error(`nothing archived: ${r.outcome}`);
    const { rows } = await pool.query<{ at: Date }>(
      "select min(archived_at) as at from ledger_streams where archived_in = $1",
      [r.archiveId],
    );
    const at = rows[0]?.at;
    if (!at) throw new Error("archive has no streams");
    return { archiveId: r.archiveId, at: at.toISOString() };
  } finally {
    if (!keep) rmSync(root, { recursive: true, force: true });
  }
}
