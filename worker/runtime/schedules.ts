// Schedules on the worker: publishing the code's schedules at start, and the tick every worker
// running an agent makes. A tick locks the due rows `for update skip locked` (one worker per
// schedule at a time), enqueues each occurrence through the ordinary enqueue under the key
// (schedule, occurrence) and moves last_occurrence_at forward, all in one transaction: the
// enqueue key is the backstop, so even two ticks of one occurrence make one task.
import type pg from "pg";
import { type SqlClient, withTransaction } from "../../db/client";
import { operator } from "../../lib/domain/access";
import type { JsonValue } from "../../lib/domain/json";
import {
  type MissedPolicy,
  occurrenceKey,
  planDue,
  scheduleSpecSchema,
} from "../../lib/domain/schedules";
import type { Agent } from "../../lib/sdk/define";
import { enqueueTasks } from "../../lib/server/commands/enqueue-tasks";
import { faultPoint } from "../../lib/server/fault-points";
import { appendLedger, SYSTEM_STREAM } from "../../lib/server/ledger/append-ledger";

/** How often a worker ticks: often enough that an every-second schedule fires on time. */
export const SCHEDULE_TICK_MS = 300;

/** Schedules one tick handles at most; the rest are due at the next. */
const TICK_BATCH = 50;

export function scheduleActor(agent: string, name: string): string {
  return `schedule:${agent}/${name}`;
}

/**
 * Upserts the code's schedules of `agents` (source 'code'): cron, time zone, input and missed
 * policy follow the code, an admin's pause stays. A code schedule no longer declared is removed
 * (of two releases running at once, the last to start is listed, as in the catalog); an admin's
 * schedule of the same name is left alone.
 */
export async function publishSchedules(
  client: SqlClient,
  agents: readonly Agent[],
  workerId: string,
): Promise<number> {
  const rows = agents.flatMap((agent) =>
    (agent.schedules ?? []).map((s) => {
      const spec = scheduleSpecSchema.parse(s);
      return { agent: agent.name, ...spec, input: (spec.input ?? null) as JsonValue };
    }),
  );
  const actor = `worker:${workerId}`;
  await client.query(
    `with declared as (
       select e->>'agent' as agent, e->>'name' as name, e->>'cron' as cron, e->>'timezone' as timezone,
              e->'input' as input, e->>'missed' as missed
         from jsonb_array_elements($1::jsonb) as e
     ), removed as (
       delete from schedules s
        where s.source = 'code' and s.agent = any($3::text[])
          and not exists (select 1 from declared d where d.agent = s.agent and d.name = s.name)
     )
     insert into schedules (agent, name, cron, timezone, input, missed, source, created_by, updated_by)
     select agent, name, cron, timezone, input, missed, 'code', $2, $2 from declared
     on conflict (agent, name) do update set cron = excluded.cron, timezone = excluded.timezone,
       input = excluded.input, missed = excluded.missed, updated_by = excluded.updated_by,
       updated_at = now(),
       -- A changed expression is planned again at the next tick.
       next_occurrence_at = case when (schedules.cron, schedules.timezone) = (excluded.cron, excluded.timezone)
                                 then schedules.next_occurrence_at end
     where schedules.source = 'code'`,
    [JSON.stringify(rows), actor, agents.map((a) => a.name)],
  );
  return rows.length;
}

type DueRow = {
  id: string;
  agent: string;
  name: string;
  cron: string;
  timezone: string;
  input: JsonValue;
  missed: MissedPolicy;
  created_at: Date;
  last_occurrence_at: Date | null;
  now: Date;
};

export type TickResult = { enqueued: number; skipped: number; schedules: number };

/**
 * One tick over the due, unpaused schedules of `agents` that no other worker is ticking now.
 * Returns what it enqueued (created tasks; an occurrence already enqueued counts nothing).
 */
export async function tickSchedules(
  pool: pg.Pool,
  agents: readonly string[],
  log?: (message: string) => void,
): Promise<TickResult> {
  const result: TickResult = { enqueued: 0, skipped: 0, schedules: 0 };
  if (agents.length === 0) return result;
  // Most ticks find nothing due: one indexed read, no transaction.
  const due = await pool.query({
    name: "schedules_any_due",
    text: `select 1 from schedules
            where agent = any($1::text[]) and not paused
              and (next_occurrence_at is null or next_occurrence_at <= clock_timestamp())
            limit 1`,
    values: [agents],
  });
  if (due.rowCount === 0) return result;
  await withTransaction(pool, async (client) => {
    const { rows } = await client.query<DueRow>({
      name: "schedules_due",
      text: `select id, agent, name, cron, timezone, input, missed, created_at, last_occurrence_at,
                    date_trunc('milliseconds', clock_timestamp()) as now
               from schedules
              where agent = any($1::text[]) and not paused
                and (next_occurrence_at is null or next_occurrence_at <= clock_timestamp())
              order by next_occurrence_at nulls first
              limit ${TICK_BATCH}
                for update skip locked`,
      values: [agents],
    });
    for (const row of rows) {
      const r = await tickOne(client, row, log);
      result.enqueued += r.enqueued;
      result.skipped += r.skipped;
      result.schedules++;
    }
    if (rows.length > 0) faultPoint("schedule.tick");
  });
  return result;
}

async function tickOne(
  client: SqlClient,
  row: DueRow,
  log?: (message: string) => void,
): Promise<{ enqueued: number; skipped: number }> {
  const from = row.last_occurrence_at ?? row.created_at;
  const plan = planDue({
    cron: row.cron,
    timezone: row.timezone,
    missed: row.missed,
    from,
    now: row.now,
  });
  const actor = scheduleActor(row.agent, row.name);
  let lastTask: string | null = null;
  let enqueued = 0;
  if (plan.enqueue.length > 0) {
    const outcome = await enqueueTasks(
      client,
      operator(actor),
      plan.enqueue.map((occurrence) => ({
        agent: row.agent,
        input: row.input,
        key: occurrenceKey(row.id, occurrence),
        unpublished: "enqueue" as const,
        schedule: { id: row.id, name: row.name, occurrence: occurrence.toISOString() },
      })),
    );
    if (outcome.ok) {
      lastTask = outcome.value.at(-1)?.taskId ?? null;
      enqueued = outcome.value.filter((v) => v.created).length;
    } else {
      // The input no longer fits the agent's published schema: record it and move on, or every
      // tick would try the same occurrences again.
      log?.(`schedule ${row.agent}/${row.name} could not enqueue: ${outcome.message}`);
      await appendLedger(client, SYSTEM_STREAM, {
        kind: "schedule.refused",
        actor,
        data: {
          schedule: row.id,
          agent: row.agent,
          name: row.name,
          occurrences: plan.enqueue.map((d) => d.toISOString()),
          reason: outcome.message,
        },
      });
    }
  }
  if (plan.skipped > 0) {
    await appendLedger(client, SYSTEM_STREAM, {
      kind: "schedule.missed",
      actor,
      data: {
        schedule: row.id,
        agent: row.agent,
        name: row.name,
        missed: row.missed,
        skipped: plan.skipped,
        ...(plan.overflow ? { note: "more occurrences were missed than one tick enqueues" } : {}),
        after: from.toISOString(),
        through: plan.handledThrough?.toISOString() ?? null,
      },
    });
  }
  // Only forward: a tick that read an older row (it cannot under the lock, but the guard says so).
  await client.query({
    name: "schedules_advance",
    text: `update schedules
              set last_occurrence_at = coalesce($2::timestamptz, last_occurrence_at),
                  last_task_id = coalesce($3::uuid, last_task_id),
                  next_occurrence_at = $4
            where id = $1
              and ($2::timestamptz is null or last_occurrence_at is null or last_occurrence_at < $2::timestamptz)`,
    values: [row.id, plan.handledThrough, lastTask, plan.next],
  });
  return { enqueued, skipped: plan.skipped };
}
