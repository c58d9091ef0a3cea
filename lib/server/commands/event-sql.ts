// The event SQL in view, shared by the send command and the worker's wait: serialize an event
// name, store an event, hand one to the open waits that match it, look for a kept one.
// Sender and waiter take the same per-name lock first, so a wait that starts while an event
// of its name arrives either sees the event or is seen by it, never neither.
import type { SqlClient } from "../../../db/client";
import type { ReceivedEvent } from "../../domain/events";
import type { JsonValue } from "../../domain/json";
import { TASKS_CHANNEL } from "./insert-tasks";

/** A wait with no timeout parks its task until then (a date every reader can hold). */
export const NO_DEADLINE = new Date("9999-12-31T00:00:00Z");

/** Held to the end of the transaction: one sender or one starting wait per event name at a time. */
export async function lockEventName(client: SqlClient, name: string): Promise<void> {
  await client.query({
    name: "events_lock_name",
    text: "select pg_advisory_xact_lock(hashtextextended('agent-ledger event:' || $1, 0))",
    values: [name],
  });
}

type EventRowOut = {
  id: string;
  name: string;
  payload: { [key: string]: JsonValue };
  received_at: Date;
  created: boolean;
};

export function toReceived(row: Omit<EventRowOut, "created">): ReceivedEvent {
  return {
    id: row.id,
    name: row.name,
    payload: row.payload,
    receivedAt: row.received_at.toISOString(),
  };
}

/**
 * Stores an event, or finds the one stored under the same key (`created` false). Concurrent
 * senders of one key wait on the unique index: the second finds the first's row.
 */
export async function insertEvent(
  client: SqlClient,
  e: {
    name: string;
    payload: JsonValue;
    key: string | null;
    keepMs: number;
    actor: string;
    task: string | null;
  },
): Promise<EventRowOut> {
  const { rows } = await client.query<EventRowOut>({
    name: "events_insert",
    text: `with inserted as (
             insert into events (name, payload, idempotency_key, expires_at, sent_by, task_id)
             values ($1, $2, $3, now() + $4 * interval '1 millisecond', $5, $6)
             on conflict (idempotency_key) do nothing
             returning id, name, payload, received_at
           )
           select id, name, payload, received_at, true as created from inserted
           union all
           select id, name, payload, received_at, false from events
           where idempotency_key = $3 and not exists (select 1 from inserted)`,
    values: [e.name, JSON.stringify(e.payload), e.key, e.keepMs, e.actor, e.task],
  });
  const row = rows[0];
  if (!row) throw new Error(`events: key ${e.key} neither stored nor found`);
  return row;
}

/**
 * Gives the event to every open wait of its name whose match the payload contains and whose
 * task is still waiting: the wait closes with it, its step is journaled with the result, the
 * task is runnable now. The waits and their tasks are locked, never skipped: a skipped wait
 * would miss the event. A task a worker claimed at its deadline is no longer waiting: it times out.
 */
export async function deliverToOpenWaits(
  client: SqlClient,
  event: ReceivedEvent,
  /** A callback link's event reaches only its own task. */
  task: string | null,
): Promise<{ taskId: string; seq: number }[]> {
  const { rows } = await client.query<{ task_id: string; seq: number }>({
    name: "events_deliver_open_waits",
    text: `with open as (
             select w.task_id, w.seq from event_waits w join tasks t on t.id = w.task_id
             where w.name = $1 and w.status = 'waiting' and $2::jsonb @> w.match and t.status = 'waiting'
               and ($6::uuid is null or w.task_id = $6)
             order by w.task_id
             for update of w, t
           ), waits as (
             update event_waits w set status = 'delivered', event_id = $3, closed_at = now()
             from open o where w.task_id = o.task_id and w.seq = o.seq
             returning w.task_id, w.seq
           ), journaled as (
             insert into steps (task_id, seq, kind, name, status, result, attempt, completed_at)
             select w.task_id, w.seq, 'wait', $1, 'completed', $4::jsonb, t.attempts, now()
             from waits w join tasks t on t.id = w.task_id
             on conflict (task_id, seq) do update
               set kind = excluded.kind, name = excluded.name, status = 'completed', result = excluded.result,
                   effect_key = null, attempt = excluded.attempt, completed_at = excluded.completed_at
             returning task_id
           ), woken as (
             update tasks t set status = 'queued', run_at = now(), version = t.version + 1,
                    updated_at = now(), status_changed_at = now()
             from waits w where t.id = w.task_id
             returning t.id
           ), notified as (
             select pg_notify($5, id::text) from woken
           )
           select w.task_id, w.seq from waits w
           where (select count(*) from journaled) >= 0 and (select count(*) from notified) >= 0
           order by w.task_id`,
    values: [
      event.name,
      JSON.stringify(event.payload),
      event.id,
      JSON.stringify({ timedOut: false, event }),
      TASKS_CHANNEL,
      task,
    ],
  });
  return rows.map((r) => ({ taskId: r.task_id, seq: r.seq }));
}

/** The oldest kept event of `name` that contains `match` and this task has not had yet. */
export async function findKeptEvent(
  client: SqlClient,
  taskId: string,
  name: string,
  match: JsonValue,
): Promise<ReceivedEvent | undefined> {
  const { rows } = await client.query<Omit<EventRowOut, "created">>({
    name: "events_find_kept",
    text: `select e.id, e.name, e.payload, e.received_at from events e
           where e.name = $1 and e.expires_at > now() and e.payload @> $2::jsonb
             and (e.task_id is null or e.task_id = $3)
             and not exists (select 1 from event_waits d where d.task_id = $3 and d.event_id = e.id)
           order by e.received_at, e.id
           limit 1`,
    values: [name, JSON.stringify(match), taskId],
  });
  const row = rows[0];
  return row ? toReceived(row) : undefined;
}

/** The tasks an event reached so far (an idempotent resend answers with them). */
export async function deliveredTo(client: SqlClient, eventId: string): Promise<string[]> {
  const { rows } = await client.query<{ task_id: string }>({
    name: "events_delivered_to",
    text: "select task_id from event_waits where event_id = $1 order by task_id",
    values: [eventId],
  });
  return rows.map((r) => r.task_id);
}

/** Where a purge of expired events stopped: the last event it looked at, in expiry order. */
export type EventPurgeCursor = { expiresAt: string; id: string };

/** Before every event: the cursor a purge starts from when it has none. */
export const EVENT_PURGE_START: EventPurgeCursor = {
  expiresAt: "-infinity",
  id: "00000000-0000-0000-0000-000000000000",
};

/**
 * Looks at up to `limit` events that expired at least `graceMs` ago, in expiry order after
 * `after`, and deletes those nothing refers to: a wait that took an event keeps it (a replay
 * of that wait gets it again, an idempotent resend names the tasks it reached, and a later wait
 * of the same task must not take it twice), and so does a callback link's event (its key is
 * what makes the link single-use). An expired event is never taken (findKeptEvent), and an
 * event only reaches open waits as it is sent, so nothing a waiting task could still take is
 * deleted; the grace covers a wait whose transaction began before the event expired.
 * Returns the cursor to continue from; an event kept once is kept for good and is not looked
 * at again.
 */
export async function purgeExpiredEvents(
  client: SqlClient,
  opts: { after: EventPurgeCursor; graceMs: number; limit: number },
): Promise<{ examined: number; deleted: number; cursor: EventPurgeCursor }> {
  const { rows } = await client.query<{
    examined: number;
    deleted: number;
    last_at: string | null;
    last_id: string | null;
  }>({
    name: "events_purge_expired",
    text: `with examined as (
             select id, expires_at from events
             where (expires_at, id) > ($1::timestamptz, $2::uuid)
               and expires_at <= now() - $3 * interval '1 millisecond'
             order by expires_at, id
             limit $4
           ), gone as (
             delete from events e
             where e.id = any(array(select id from examined)) and e.task_id is null
               and not exists (select 1 from event_waits w where w.event_id = e.id)
             returning e.id
           ), last as (
             select expires_at, id from examined order by expires_at desc, id desc limit 1
           )
           select (select count(*) from examined)::int as examined,
                  (select count(*) from gone)::int as deleted,
                  (select expires_at::text from last) as last_at,
                  (select id from last) as last_id`,
    values: [opts.after.expiresAt, opts.after.id, opts.graceMs, opts.limit],
  });
  const row = rows[0];
  const cursor =
    row?.last_at && row.last_id ? { expiresAt: row.last_at, id: row.last_id } : opts.after;
  return { examined: row?.examined ?? 0, deleted: row?.deleted ?? 0, cursor };
}
