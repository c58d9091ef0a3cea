// Bulk actions over dead letters: the vocabulary the database checks (actions, statuses,
// per-task outcomes) and which per-task action of lib/domain/task-actions each one runs. A bulk
// action is that per-task core run over a frozen set, never rules of its own.
import { missingScope, type Principal } from "./access";
import type { CommandFailure } from "./command-result";
import { refusalOf, type TaskAction } from "./task-actions";

export const BULK_ACTIONS = ["resume", "reject", "replay", "cancel"] as const;
export type BulkAction = (typeof BULK_ACTIONS)[number];

/** The per-task action each bulk action runs, with the same checks as one task's button. */
export const BULK_TASK_ACTION: Readonly<Record<BulkAction, TaskAction>> = {
  resume: "resume",
  reject: "reject",
  replay: "replay",
  cancel: "cancel",
};

/**
 * awaiting_second: a money bulk frozen by one reviewer, waiting for a different one to confirm
 * the whole set; running: members are being acted on; done: every member has an outcome;
 * withdrawn: its requester (or an admin) took it back while it waited; declined: a second
 * reviewer read it and said no, with a reason; stopped: the runner found that a person it acts
 * for may no longer do this (role changed, user disabled), so the members not yet run were
 * skipped. The last four are final.
 */
export const BULK_STATUSES = [
  "awaiting_second",
  "running",
  "done",
  "withdrawn",
  "declined",
  "stopped",
] as const;
export type BulkStatus = (typeof BULK_STATUSES)[number];

/**
 * What happened to one member: done (the action changed the task), waiting (it now waits for a
 * second reviewer of its own), taken (another reviewer acted on it first), refused (the
 * per-task checks said no: state, scope, step), failed (an error; the message says which),
 * skipped (never acted on: the bulk action was withdrawn, declined or stopped; the detail says
 * why).
 */
export const MEMBER_OUTCOMES = [
  "done",
  "waiting",
  "taken",
  "refused",
  "failed",
  "skipped",
] as const;
export type MemberOutcome = (typeof MEMBER_OUTCOMES)[number];

export const MEMBER_STATUSES = ["pending", "finished"] as const;
export type MemberStatus = (typeof MEMBER_STATUSES)[number];

/** Most tasks one bulk action freezes: a bigger outage is triaged in more than one go. */
export const MAX_BULK_MEMBERS = 10_000;

/**
 * May `principal` withdraw a bulk action that waits for a second reviewer? The one who froze
 * it may, while they may still take its action on a dead task; anyone else needs to be able to
 * cancel tasks (an admin), as taking back another reviewer's decision is. Null when yes.
 */
export function withdrawRefusal(
  bulk: { action: BulkAction; status: BulkStatus; requestedBy: string },
  principal: Pick<Principal, "actor" | "who" | "scopes">,
): CommandFailure | null {
  if (bulk.status !== "awaiting_second") {
    return {
      ok: false,
      code: "conflict",
      message: `this bulk action is ${bulk.status}: only one waiting for a second reviewer can be withdrawn`,
    };
  }
  const own = refusalOf(BULK_TASK_ACTION[bulk.action], "dead", principal);
  if (own) return own;
  if (bulk.requestedBy !== principal.actor && !principal.scopes.has("tasks:cancel")) {
    return {
      ok: false,
      code: "forbidden",
      message: missingScope(
        principal.who,
        "tasks:cancel",
        `withdraw a bulk action ${bulk.requestedBy} froze`,
      ),
    };
  }
  return null;
}

/**
 * May `principal` confirm a bulk action that waits for a second reviewer? Anyone who may take
 * its action on a dead task, except the one who froze it. Null when yes.
 */
export function confirmRefusal(
  bulk: { action: BulkAction; status: BulkStatus; requestedBy: string; memberCount: number },
  principal: Pick<Principal, "actor" | "who" | "scopes">,
): CommandFailure | null {
  const own = refusalOf(BULK_TASK_ACTION[bulk.action], "dead", principal);
  if (own) return own;
  if (bulk.status !== "awaiting_second") {
    return {
      ok: false,
      code: "conflict",
      message: `this bulk action is ${bulk.status}: only one waiting for a second reviewer can be confirmed or declined`,
    };
  }
  if (bulk.requestedBy === principal.actor) {
    return {
      ok: false,
      code: "conflict",
      message: `a second, different reviewer must decide: you froze this set of ${bulk.memberCount} task${bulk.memberCount === 1 ? "" : "s"} (you may withdraw it)`,
    };
  }
  return null;
}

/**
 * May `principal` decline it? The same people who may confirm it: the second reviewer's answer
 * is yes or no, and either needs the right to give it. Null when yes.
 */
export const declineRefusal = confirmRefusal;
