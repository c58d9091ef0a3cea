// Picks filter values that exist in the loaded data (from the middle, not the newest rows, so
// a lookup cannot be answered from the first page by luck). Untimed, before the measure.
import type pg from "pg";
import type { Samples } from "./cases";
import { taskIdOf } from "./shape";

async function one<T>(pool: pg.Pool, text: string, fallback: T): Promise<T> {
  const { rows } = await pool.query<{ v: T }>(text);
  return rows[0]?.v ?? fallback;
}

export async function findSamples(pool: pg.Pool): Promise<Samples> {
  const tasks = await one(pool, "select count(*)::int as v from tasks", 1);
  const mid = Math.floor(tasks / 2);
  const email = await pool.query<{ key: string; to: string; message_id: string }>(
    `select key, args ->> 'to' as to, result ->> 'messageId' as message_id from effects
     where tool = 'send_email' and status = 'succeeded' order by created_at offset $1 limit 1`,
    [Math.floor(mid / 2)],
  );
  const refund = await one(
    pool,
    `select result ->> 'refundId' as v from effects where tool = 'refund' and status = 'succeeded'
     order by created_at offset ${Math.floor(mid / 4)} limit 1`,
    "re_missing",
  );
  const taskId = await one(
    pool,
    `select id::text as v from tasks order by created_at offset ${mid} limit 1`,
    "",
  );
  const bounds = await pool.query<{ lo: Date; hi: Date }>(
    "select min(at) as lo, max(at) as hi from ledger_entries",
  );
  const lo = bounds.rows[0]?.lo.getTime() ?? Date.now();
  const hi = bounds.rows[0]?.hi.getTime() ?? Date.now();
  const middle = lo + (hi - lo) / 2;
  const dead = await pool.query<{ reason: string; fingerprint: string }>(
    `select dead_reason as reason, coalesce(error_fingerprint(coalesce(last_error ->> 'message', last_error #>> '{}')), '') as fingerprint
     from tasks where status = 'dead' order by status_changed_at limit 1`,
  );
  const big = taskIdOf(0);
  const hasBig = await one(pool, `select count(*)::int as v from tasks where id = '${big}'`, 0);
  const e = email.rows[0];
  return {
    taskId,
    bigTaskId: hasBig ? big : taskId,
    key: e?.key ?? "0".repeat(64),
    recipient: e?.to ?? "nobody@example.com",
    messageId: (e?.message_id ?? "<none@example.com>").replace(/^<|>$/g, ""),
    refundId: refund,
    windowFrom: new Date(middle).toISOString(),
    windowTo: new Date(middle + 3_600_000).toISOString(),
    recentFrom: new Date(hi - 30 * 86_400_000).toISOString(),
    busyActor: "worker:host-3",
    rareActor: "user:admin@example.com",
    deadReason: dead.rows[0]?.reason ?? "exhausted",
    fingerprint: dead.rows[0]?.fingerprint ?? "",
  };
}
