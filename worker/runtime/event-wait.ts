// ctx.waitForEvent's write, in one transaction under the task's lease and the event name's
// lock: open the wait (or find it open from before), take a kept event at once if one matches,
// time it out if its deadline passed (a claim at the deadline), or park the task in `waiting`
// with no lease and no attempt spent until an event or the deadline.
import type pg from "pg";
import { withTransaction } from "../../db/client";
import type { ReceivedEvent, WaitResult } from "../../lib/domain/events";
import type { JsonValue } from "../../lib/domain/json";
import type { WaitStatus } from "../../lib/domain/task-states";
import {
  findKeptEvent,
  lockEventName,
  NO_DEADLINE,
  toReceived,
} from "../../lib/server/commands/event-sql";
import { faultPoint } from "../../lib/server/fault-points";
import { appendThrough, type HeadRef } from "../../lib/server/ledger/append-known-head";
import type { AppendedEntry, NewLedgerEntry } from "../../lib/server/ledger/append-ledger";
import { journalStep } from "./journal";
import { leasedTo } from "./task-sql";

export type WaitRequest = {
  worker: string;
  taskId: string;
  /** The attempt's head: its entries go through it (its start on the first). */
  head: HeadRef;
  attempt: number;
  seq: number;
  name: string;
  match: { [key: string]: JsonValue };
  /** Null: no timeout. */
  deadline: Date | null;
};

export type WaitOutcome =
  | { kind: "done"; result: WaitResult; appended: AppendedEntry[] }
  | { kind: "parked" }
  | { kind: "lost" };

type OpenWait = { status: WaitStatus; deadline: Date | null; event_id: string | null };

export async function startWait(pool: pg.Pool, req: WaitRequest): Promise<WaitOutcome> {
  const actor = `worker:${req.worker}`;
  const entry = (kind: string, data: Record<string, JsonValue>): NewLedgerEntry => ({
    kind,
    actor,
    taskId: req.taskId,
    data: { attempt: req.attempt, step: req.seq, name: req.name, ...data },
  });
  return withTransaction(pool, async (client): Promise<WaitOutcome> => {
    await lockEventName(client, req.name);
    const leased = await client.query({
      name: "runtime_wait_lease",
      text: `select 1 from tasks where id = $1 and ${leasedTo("$2")} for update`,
      values: [req.taskId, req.worker],
    });
    if (leased.rowCount !== 1) return { kind: "lost" };

    const finish = async (result: WaitResult, entries: NewLedgerEntry[]): Promise<WaitOutcome> => {
      const step = { seq: req.seq, kind: "wait" as const, name: req.name, result, effectKey: null };
      if (!(await journalStep(client, req.worker, req.taskId, req.attempt, step))) {
        return { kind: "lost" };
      }
      const appended = await appendThrough(client, req.head, entries);
      faultPoint("event.taken");
      return { kind: "done", result, appended };
    };

    const { rows } = await client.query<OpenWait>({
      name: "runtime_wait_find",
      text: "select status, deadline, event_id from event_waits where task_id = $1 and seq = $2 for update",
      values: [req.taskId, req.seq],
    });
    const existing = rows[0];
    let deadline = req.deadline;
    if (existing?.status === "delivered" && existing.event_id) {
      // Replayed from before this step: it gets the event it got the first time.
      const event = await eventById(client, existing.event_id);
      return finish({ timedOut: false, event }, [
        entry("event.delivered", { event: event.id, replayed: true }),
      ]);
    }
    if (existing?.status === "waiting") {
      // Claimed at the deadline, or run again before it: the wait is the one opened before.
      deadline = existing.deadline;
      if (deadline && deadline.getTime() <= Date.now()) {
        await closeWait(client, req, "timed_out", null);
        return finish({ timedOut: true }, [
          entry("event.timed_out", { deadline: deadline.toISOString() }),
        ]);
      }
    } else if (existing) {
      await client.query({
        name: "runtime_wait_reopen",
        text: `update event_waits set status = 'waiting', event_id = null, closed_at = null,
                 name = $3, match = $4, deadline = $5, created_at = now()
               where task_id = $1 and seq = $2`,
        values: [req.taskId, req.seq, req.name, JSON.stringify(req.match), deadline],
      });
    } else {
      await client.query({
        name: "runtime_wait_open",
        text: `insert into event_waits (task_id, seq, name, match, deadline) values ($1, $2, $3, $4, $5)`,
        values: [req.taskId, req.seq, req.name, JSON.stringify(req.match), deadline],
      });
    }

    const kept = await findKeptEvent(client, req.taskId, req.name, req.match);
    if (kept) {
      await closeWait(client, req, "delivered", kept.id);
      return finish({ timedOut: false, event: kept }, [
        entry("event.delivered", { event: kept.id, payload: kept.payload, kept: true }),
      ]);
    }

    const parked = await client.query({
      name: "runtime_wait_park",
      text: `update tasks set status = 'waiting', run_at = $3, attempts = greatest(attempts - 1, attempt_base),
               lease_owner = null, lease_expires_at = null,
               version = version + 1, updated_at = now(), status_changed_at = now()
             where id = $1 and ${leasedTo("$2")}`,
      values: [req.taskId, req.worker, deadline ?? NO_DEADLINE],
    });
    if (parked.rowCount !== 1) return { kind: "lost" };
    await appendThrough(
      client,
      req.head,
      entry("event.waiting", {
        match: req.match,
        deadline: deadline ? deadline.toISOString() : null,
      }),
    );
    return { kind: "parked" };
  });
}

async function closeWait(
  client: pg.PoolClient,
  req: WaitRequest,
  status: "delivered" | "timed_out",
  eventId: string | null,
): Promise<void> {
  await client.query({
    name: "runtime_wait_close",
    text: `update event_waits set status = $3, event_id = $4, closed_at = now()
           where task_id = $1 and seq = $2`,
    values: [req.taskId, req.seq, status, eventId],
  });
}

async function eventById(client: pg.PoolClient, id: string): Promise<ReceivedEvent> {
  const { rows } = await client.query<{
    id: string;
    name: string;
    payload: { [key: string]: JsonValue };
    received_at: Date;
  }>({
    name: "runtime_wait_event",
    text: "select id, name, payload, received_at from events where id = $1",
    values: [id],
  });
  const row = rows[0];
  if (!row) throw new Error(`event ${id} of a delivered wait is gone`);
  return toReceived(row);
}
