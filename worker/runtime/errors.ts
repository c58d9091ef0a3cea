// Internal control flow of an attempt: why it stopped, as the runtime needs to know it.
import type { JsonValue } from "../../lib/domain/json";
import type { DeadReason } from "../../lib/domain/task-states";

/** Ends the task in `dead` with this reason, whatever attempts are left. */
export class DeadLetterError extends Error {
  override name = "DeadLetterError";
  constructor(
    readonly reason: DeadReason,
    message: string,
  ) {
    super(message);
  }
}

/** The attempt ran past attemptTimeoutMs. */
export class AttemptTimeoutError extends Error {
  override name = "AttemptTimeoutError";
}

/** Another worker reaped our lease: stop, act on nothing more, write nothing more. */
export class LeaseLostError extends Error {
  override name = "LeaseLostError";
}

/** Not a failure: the task waits (a durable sleep, or an effect another worker holds) and runs again at `until`. */
export class SuspendError extends Error {
  override name = "SuspendError";
  constructor(
    readonly until: Date,
    readonly why: string,
    /** Recorded with task.requeued beside until and why (a budget wait's amounts). */
    readonly data: Record<string, JsonValue> = {},
  ) {
    super(why);
  }
}

/**
 * The task is parked in `waiting` for an event or for its children (event-wait.ts, join.ts wrote
 * it and released the lease): nothing more to record.
 */
export class ParkedError extends Error {
  override name = "ParkedError";
}

/** A gated effect needs a human's yes for exactly this key and payload: park the task. */
export class ApprovalNeededError extends Error {
  override name = "ApprovalNeededError";
  constructor(
    readonly approval: {
      key: string;
      fingerprint: string;
      tool: string;
      args: JsonValue;
      step: number;
      /** The tool moves money: two different reviewers must approve. */
      money: boolean;
    },
  ) {
    super(`${approval.tool} needs approval before it acts`);
  }
}

export type SerializedError = { name: string; message: string; cause?: string };

export function serializeError(err: unknown): SerializedError {
  if (err instanceof Error) {
    const cause = err.cause instanceof Error ? err.cause.message : undefined;
    return { name: err.name, message: err.message.slice(0, 2_000), ...(cause ? { cause } : {}) };
  }
  return { name: "Error", message: String(err).slice(0, 2_000) };
}
