// Events a task can wait for: the name and payload rules every way in shares (the library, the
// HTTP API, the CLI, a callback link, the dashboard), the match a wait states, and the typed
// result ctx.waitForEvent returns.
import { z } from "zod";
import { type JsonValue, toJsonValue } from "./json";

/** Dotted lower-case words, like a ledger kind: `order.paid`, `invoice.approved`. */
export const EVENT_NAME_PATTERN = /^[a-z][a-z0-9_-]*(\.[a-z][a-z0-9_-]*)*$/;

export const eventNameSchema = z
  .string({ message: "must be a string" })
  .min(1, "must not be empty")
  .max(200, "must be at most 200 characters")
  .regex(EVENT_NAME_PATTERN, "must be dotted lower-case words, e.g. order.paid");

/** A payload is a JSON object: a wait's match is a part of it (`payload @> match`). */
export const eventPayloadSchema = z
  .record(z.string(), z.unknown(), { message: "must be a JSON object" })
  .transform((v, ctx): { [key: string]: JsonValue } => {
    try {
      return toJsonValue(v, "payload") as { [key: string]: JsonValue };
    } catch (err) {
      ctx.addIssue({ code: "custom", message: err instanceof Error ? err.message : String(err) });
      return z.NEVER;
    }
  });

export const sendEventSchema = z.object({
  name: eventNameSchema,
  payload: eventPayloadSchema.default({}),
});
export type SendEventBody = z.infer<typeof sendEventSchema>;

/** How long a wait may last: up to a year (a wait with no timeout waits for ever). */
export const MAX_WAIT_MS = 365 * 24 * 3_600_000;

export const waitOptionsSchema = z.object({
  match: eventPayloadSchema.optional(),
  timeoutMs: z
    .number({ message: "must be a number of milliseconds" })
    .int("must be a whole number of milliseconds")
    .min(0, "must be at least 0")
    .max(MAX_WAIT_MS, `must be at most ${MAX_WAIT_MS} (a year)`)
    .optional(),
});
export type WaitOptions = z.input<typeof waitOptionsSchema>;

export type ReceivedEvent = {
  id: string;
  name: string;
  payload: { [key: string]: JsonValue };
  /** ISO 8601. */
  receivedAt: string;
};

/** What ctx.waitForEvent returns: the event, or that the timeout passed first. */
export type WaitResult = { timedOut: false; event: ReceivedEvent } | { timedOut: true };

/** The default time an event is kept for a wait that has not started yet: 24 h. */
export const DEFAULT_EVENT_KEEP_MS = 24 * 3_600_000;
