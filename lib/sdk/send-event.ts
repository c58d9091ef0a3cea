// sendEvent from the user's own code: wakes the tasks waiting for it (ctx.waitForEvent) and is
// kept for waits that start later. The name and payload are checked here, naming the field.
import type pg from "pg";
import { operator } from "../domain/access";
import { DEFAULT_EVENT_KEEP_MS, sendEventSchema } from "../domain/events";
import { describeIssues } from "../domain/zod-issues";
import { type SentEvent, sendEvent as sendEventCommand } from "../server/commands/send-event";

export type SendEventOptions = {
  name: string;
  payload?: unknown;
  /** The same key is the same event: sending it again delivers nothing new. */
  key?: string;
  /** Recorded in the ledger as who sent it. */
  actor?: string;
  /** How long the event is kept for a wait that starts later (default 24 h). */
  keepMs?: number;
};

export class InvalidEventError extends Error {
  override name = "InvalidEventError";
}

export async function sendEvent(pool: pg.Pool, opts: SendEventOptions): Promise<SentEvent> {
  const parsed = sendEventSchema.safeParse({ name: opts.name, payload: opts.payload });
  if (!parsed.success)
    throw new InvalidEventError(`invalid event: ${describeIssues(parsed.error)}`);
  if (opts.key !== undefined && (opts.key.length < 1 || opts.key.length > 255)) {
    throw new InvalidEventError("invalid event: key must be 1 to 255 characters");
  }
  const result = await sendEventCommand(pool, operator(opts.actor ?? "library"), {
    ...parsed.data,
    key: opts.key,
    keepMs: opts.keepMs ?? DEFAULT_EVENT_KEEP_MS,
  });
  if (result.ok) return result.value;
  throw new InvalidEventError(result.message);
}
