// After the storm: wait until every task is terminal or parked, then count what the receivers
// got per intent, what the tasks ended as, and whether every hash chain still verifies.
import type pg from "pg";
import { verifyLedger } from "../../lib/server/ledger/verify-ledger";
import { createdRefunds, type Receivers, receivedMessages } from "./services";

/** Statuses a task rests in: terminal, dead (a human's turn), or parked for approval ("held"). */
const RESTING = ["succeeded", "dead", "rejected", "cancelled", "awaiting_approval"];

export async function statusCounts(pool: pg.Pool): Promise<Map<string, number>> {
  const { rows } = await pool.query<{ status: string; n: number }>(
    "select status, count(*)::int as n from tasks group by status",
  );
  return new Map(rows.map((r) => [r.status, r.n]));
}

/**
 * Resolves true once every task rests and none is parked (the approver moves parked ones on,
 * so one left parked is still on its way); false on abort.
 */
export async function waitForQuiescence(pool: pg.Pool, signal: AbortSignal): Promise<boolean> {
  while (!signal.aborted) {
    const counts = await statusCounts(pool);
    const moving = [...counts].filter(([s]) => !RESTING.includes(s)).reduce((a, [, n]) => a + n, 0);
    if (moving === 0 && (counts.get("awaiting_approval") ?? 0) === 0) return true;
    await new Promise((r) => setTimeout(r, 250));
  }
  return false;
}

type Grouped = { intents: number; deliveries: number; max: number; duplicated: string[] };

function group(keys: readonly (string | null | undefined)[]): Grouped {
  const counts = new Map<string, number>();
  for (const key of keys) counts.set(key ?? "(no key)", (counts.get(key ?? "(no key)") ?? 0) + 1);
  const duplicated = [...counts].filter(([, n]) => n > 1).map(([k]) => k);
  return {
    intents: counts.size,
    deliveries: keys.length,
    max: Math.max(0, ...counts.values()),
    duplicated,
  };
}

export type Findings = {
  tasks: number;
  enqueued: number;
  succeeded: number;
  dead: Record<string, number>;
  held: number;
  lost: number;
  smtp: Grouped & { keys: Set<string> };
  payments: Grouped & { keys: Set<string> };
  /** Effects the database says succeeded that no receiver has a delivery for. */
  missing: { key: string; tool: string; taskId: string }[];
  /** Deliveries under a key the database has no effect for: acted without claiming first. */
  unrecorded: string[];
  chain: { ok: boolean; entries: number; streams: number; problems: string[] };
  workerLost: number;
  /**
   * How long crashed attempts stayed unnoticed: from the worker's death to the worker.lost entry
   * of each task it held (the lease running out, then a reaper's pass), and the slowest three.
   * `reapedAlive`: worker.lost entries naming a worker the harness never saw die (its heartbeat
   * fell behind its lease on a starved box); not a broken promise, the lease is the rule.
   */
  recoveryMs: { p50: number; p95: number; max: number; slowest: string[]; reapedAlive: number };
};

export async function inspect(
  pool: pg.Pool,
  receivers: Receivers,
  enqueued: number,
  /** When each worker died, by its runtime worker id (the fleet's record). */
  diedAt: ReadonlyMap<string, number>,
): Promise<Findings> {
  const counts = await statusCounts(pool);
  const total = [...counts.values()].reduce((a, n) => a + n, 0);
  const { rows: deadRows } = await pool.query<{ reason: string; n: number }>(
    "select coalesce(dead_reason, '(none)') as reason, count(*)::int as n from tasks where status = 'dead' group by 1 order by 1",
  );
  const resting = RESTING.reduce((a, s) => a + (counts.get(s) ?? 0), 0);

  const messages = await receivedMessages(receivers);
  const refunds = await createdRefunds(receivers);
  const smtp = group(messages.map((m) => m.ledgerKey));
  const payments = group(refunds.map((r) => r.metadata.intent_key));
  const delivered = {
    send_email: new Set(messages.map((m) => m.ledgerKey ?? "")),
    refund: new Set(refunds.map((r) => r.metadata.intent_key ?? "")),
  };
  const { rows: effects } = await pool.query<{ key: string; tool: string; task_id: string }>(
    "select key, tool, task_id from effects where status = 'succeeded'",
  );
  const { rows: known } = await pool.query<{ key: string }>("select key from effects");
  const recorded = new Set(known.map((r) => r.key));
  const unrecorded = [...delivered.send_email, ...delivered.refund].filter((k) => !recorded.has(k));
  const missing = effects
    .filter((e) => !delivered[e.tool as keyof typeof delivered]?.has(e.key))
    .map((e) => ({ key: e.key, tool: e.tool, taskId: e.task_id }));

  const report = await verifyLedger(pool);
  // From each dead worker's exit (seen by the harness, on the same clock as the database) to
  // the worker.lost entry of each task it held. Workers that died before they were ready held
  // nothing. The clock and the harness's exit event round to a few ms.
  const { rows: lostRows } = await pool.query<{
    stream: string;
    seq: number;
    worker: string;
    at: Date;
  }>(
    `select stream, seq, data->>'worker' as worker, at from ledger_entries where kind = 'worker.lost'`,
  );
  const recovery = lostRows
    .flatMap((r) => {
      const died = diedAt.get(r.worker);
      return died === undefined
        ? []
        : [{ stream: r.stream, seq: r.seq, ms: r.at.getTime() - died }];
    })
    .sort((a, b) => a.ms - b.ms);
  const pct = (q: number) =>
    recovery[Math.min(recovery.length - 1, Math.floor(q * recovery.length))]?.ms ?? 0;
  return {
    tasks: total,
    enqueued,
    succeeded: counts.get("succeeded") ?? 0,
    dead: Object.fromEntries(deadRows.map((r) => [r.reason, r.n])),
    held: counts.get("awaiting_approval") ?? 0,
    // Never enqueued as far as the database knows counts as lost too.
    lost: total - resting + Math.max(0, enqueued - total),
    smtp: { ...smtp, keys: delivered.send_email },
    payments: { ...payments, keys: delivered.refund },
    missing,
    unrecorded,
    chain: {
      ok: report.ok && report.problems.length === 0,
      entries: report.entries,
      streams: report.streams,
      problems: report.problems.map(
        (p) => `${p.stream}#${p.seq ?? "?"}: ${p.problem}: ${p.message}`,
      ),
    },
    workerLost: lostRows.length,
    recoveryMs: {
      p50: pct(0.5),
      p95: pct(0.95),
      max: recovery.at(-1)?.ms ?? 0,
      slowest: recovery
        .slice(-3)
        .reverse()
        .map((r) => `${r.stream}#${r.seq}: ${r.ms} ms`),
      reapedAlive: lostRows.length - recovery.length,
    },
  };
}

/** Whether the run broke a promise; each failure is one line naming what broke. */
export function failures(f: Findings): string[] {
  const duplicated = [...f.smtp.duplicated, ...f.payments.duplicated];
  const out: (string | false)[] = [
    duplicated.length > 0 &&
      `duplicate delivery: ${duplicated.length} intent(s) delivered more than once (${duplicated.slice(0, 5).join(", ")})`,
    f.lost > 0 && `lost tasks: ${f.lost} task(s) neither terminal nor held`,
    !f.chain.ok && `broken chain: ${f.chain.problems.slice(0, 5).join("; ")}`,
    f.missing.length > 0 &&
      `missing delivery: ${f.missing.length} effect(s) recorded as succeeded that no receiver got (${f.missing
        .slice(0, 5)
        .map((m) => `${m.tool} ${m.key}`)
        .join(", ")})`,
    f.unrecorded.length > 0 &&
      `unrecorded delivery: ${f.unrecorded.length} delivery key(s) with no effect in the database (${f.unrecorded.slice(0, 5).join(", ")})`,
    f.tasks !== f.enqueued && `the database holds ${f.tasks} tasks, ${f.enqueued} were enqueued`,
  ];
  return out.filter((x): x is string => typeof x === "string");
}

/**
 * The evidence for a failure, before the database goes: every task behind a duplicate, a
 * missing delivery or a task that never came to rest, with its effects, steps and ledger.
 */
export async function evidence(pool: pg.Pool, f: Findings): Promise<unknown[]> {
  const keys = [
    ...f.smtp.duplicated,
    ...f.payments.duplicated,
    ...f.missing.map((m) => m.key),
    ...f.unrecorded,
  ];
  const { rows } = await pool.query<{ id: string }>(
    `select distinct task_id as id from effects where key = any($1::text[])
     union
     (select id from tasks where status not in (${RESTING.map((s) => `'${s}'`).join(", ")}) limit 20)`,
    [keys],
  );
  const out: unknown[] = [];
  for (const { id } of rows) {
    const q = async (sql: string) => (await pool.query(sql, [id])).rows;
    out.push({
      task: (await q("select * from tasks where id = $1"))[0],
      effects: await q("select * from effects where task_id = $1 order by step_seq"),
      steps: await q("select * from journal_steps where task_id = $1 order by seq"),
      ledger: await q(
        "select seq, at, kind, actor, key, data from ledger_entries where stream = 'task:' || $1::text order by seq",
      ),
    });
  }
  return out;
}
