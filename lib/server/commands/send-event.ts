// send an event: stored and given to every task waiting for it, in one transaction. The event
// is an `event.received` entry on its own stream; each task it reaches gets `event.delivered`
// on its stream, with its wait step journaled and the task queued. The same key is the same
// event: a resend delivers nothing new and answers with the first one.
import type pg from "pg";
import { withTransaction } from "../../../db/client";
import { missingScope, type Principal } from "../../domain/access";
import { type CommandResult, conflict, forbidden } from "../../domain/command-result";
import { canonicalJson, type JsonValue } from "../../domain/json";
import { appendLedgerMany, type NewStreamEntry, taskStream } from "../ledger/append-ledger";
import {
  deliveredTo,
  deliverToOpenWaits,
  insertEvent,
  lockEventName,
  toReceived,
} from "./event-sql";

export type SendEventInput = {
  name: string;
  payload: { [key: string]: JsonValue };
  /** The sender's idempotency key; null or absent: every send is a new event. */
  key?: string | null;
  /** How long the event is kept for a wait that starts later (EVENT_KEEP_MS). */
  keepMs: number;
};

export type SentEvent = {
  event: { id: string; name: string; receivedAt: string };
  /** Tasks the event reached (on a resend of a key: the ones the first send reached). */
  deliveredTo: string[];
  /** False when the key had been sent before. */
  created: boolean;
};

export function eventStream(eventId: string): string {
  return `event:${eventId}`;
}

export async function sendEvent(
  pool: pg.Pool,
  principal: Principal,
  input: SendEventInput,
): Promise<CommandResult<SentEvent>> {
  if (!principal.scopes.has("events:send")) {
    return forbidden(missingScope(principal.who, "events:send", "send events"));
  }
  return deliverEvent(pool, principal.actor, { ...input, task: null });
}

/**
 * The send itself, for a sender already authorized: a principal with events:send, or the
 * holder of a task's signed callback link (redeem-callback.ts), whose event reaches only `task`.
 */
export async function deliverEvent(
  pool: pg.Pool,
  actor: string,
  input: SendEventInput & { task: string | null },
): Promise<CommandResult<SentEvent>> {
  return withTransaction(pool, async (client): Promise<CommandResult<SentEvent>> => {
    await lockEventName(client, input.name);
    const row = await insertEvent(client, {
      name: input.name,
      payload: input.payload,
      key: input.key ?? null,
      keepMs: input.keepMs,
      actor,
      task: input.task,
    });
    const event = toReceived(row);
    const summary = { id: event.id, name: event.name, receivedAt: event.receivedAt };
    if (!row.created) {
      if (row.name !== input.name || canonicalJson(row.payload) !== canonicalJson(input.payload)) {
        // A conflict with what the key already means: the API answers 422 idempotency-key-reused.
        return conflict(
          `idempotency key "${input.key}" was used for another event (${row.name} ${canonicalJson(row.payload)})`,
        );
      }
      return {
        ok: true,
        value: { event: summary, deliveredTo: await deliveredTo(client, event.id), created: false },
      };
    }
    const reached = await deliverToOpenWaits(client, event, input.task);
    const entries: NewStreamEntry[] = [
      {
        stream: eventStream(event.id),
        kind: "event.received",
        actor,
        data: {
          event: event.id,
          name: event.name,
          payload: event.payload,
          key: input.key ?? null,
          ...(input.task ? { task: input.task } : {}),
          deliveredTo: reached.map((r) => r.taskId),
        },
      },
      ...reached.map((r) => ({
        stream: taskStream(r.taskId),
        kind: "event.delivered",
        actor,
        taskId: r.taskId,
        data: { step: r.seq, event: event.id, name: event.name, payload: event.payload },
      })),
    ];
    await appendLedgerMany(client, entries);
    return {
      ok: true,
      value: { event: summary, deliveredTo: reached.map((r) => r.taskId), created: true },
    };
  });
}
