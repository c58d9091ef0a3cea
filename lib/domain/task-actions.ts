// The one table of what may be done to a task, in which state, with which scopes. Commands
// authorize with it under the task's row lock; queries return allowedActions from it so the
// screens show exactly the buttons the commands will honour. Nothing else restates a status
// list or a scope rule for a review action.
import { missingScope, type Principal, type Scope } from "./access";
import type { CommandFailure } from "./command-result";
import type { TaskStatus } from "./task-states";

export const TASK_ACTIONS = [
  "approve",
  "resume",
  "reject",
  "replay",
  "correct",
  "resolve",
  "reconcile",
  "cancel",
  "withdraw",
] as const;
export type TaskAction = (typeof TASK_ACTIONS)[number];

/**
 * What a task holds besides its status that an action needs: an effect whose outcome is
 * unknown (resolve, reconcile), a pending two-person request (withdraw). Left out, a fact is
 * not judged here: a caller that did not read it gets the status rule, and the command checks
 * the thing itself (the effect, the request) under the row lock.
 */
export type TaskFacts = {
  status: TaskStatus;
  /** A `started` effect of the task whose lease ran out without a result. */
  unknownOutcome?: boolean;
  /** A review request waiting for a second reviewer. */
  pendingRequest?: boolean;
};
export type TaskFact = Exclude<keyof TaskFacts, "status">;

type Rule = {
  /** The action as a refusal says it: "cannot <verb> a task that is running". */
  verb: string;
  /** The statuses it applies to, each with every scope it needs there. */
  needs: Partial<Record<TaskStatus, readonly Scope[]>>;
  /** Whether the two-person rule can apply (money); the command decides from the preview. */
  twoPerson: boolean;
  /** A fact the task must hold, and how a refusal says it does not. */
  requires?: { fact: TaskFact; absent: string };
};

const UNFINISHED = [
  "queued",
  "running",
  "retry_wait",
  "awaiting_approval",
  "waiting",
  "dead",
] as const;

export const TASK_ACTION_RULES: Readonly<Record<TaskAction, Rule>> = {
  /** A parked gated effect may act, with exactly the arguments the reviewer saw. */
  approve: {
    verb: "approve",
    needs: { awaiting_approval: ["approvals:decide"] },
    twoPerson: true,
  },
  /** A dead task resumes from its first step not completed, with a fresh attempt budget. */
  resume: { verb: "resume", needs: { dead: ["deadLetters:review"] }, twoPerson: true },
  /** The task ends as rejected; rejecting a dead one is dead-letter triage too. */
  reject: {
    verb: "reject",
    needs: {
      awaiting_approval: ["approvals:decide"],
      dead: ["approvals:decide", "deadLetters:review"],
    },
    twoPerson: false,
  },
  /** Steps from N run again; effects already done deduplicate. */
  replay: {
    verb: "replay",
    needs: { dead: ["deadLetters:review"], awaiting_approval: ["deadLetters:review"] },
    twoPerson: true,
  },
  /**
   * A dead task's input is corrected (it must pass the agent's schema) and the task replays
   * with it; the correction is a ledger entry with before and after, never an edit.
   */
  correct: {
    verb: "correct the input of",
    needs: { dead: ["deadLetters:review"] },
    twoPerson: true,
  },
  /** A reviewer records whether an effect with an unknown outcome happened. */
  resolve: {
    verb: "resolve an outcome of",
    needs: { dead: ["outcomes:resolve"] },
    twoPerson: false,
    requires: { fact: "unknownOutcome", absent: "it has no effect whose outcome is unknown" },
  },
  /**
   * A worker asks the provider (the tool's reconcile) whether such an effect happened; the
   * answer is recorded for the reviewer who resolves, it changes nothing by itself.
   */
  reconcile: {
    verb: "check with the provider about",
    needs: { dead: ["outcomes:resolve"] },
    twoPerson: false,
    requires: { fact: "unknownOutcome", absent: "it has no effect whose outcome is unknown" },
  },
  /** Stops for good a task that has not finished. */
  cancel: {
    verb: "cancel",
    needs: Object.fromEntries(UNFINISHED.map((s) => [s, ["tasks:cancel"]])),
    twoPerson: false,
  },
  /** Takes back a pending two-person request (one's own, or one a reviewer will not confirm). */
  withdraw: {
    verb: "withdraw a review request on",
    needs: { dead: ["deadLetters:review"], awaiting_approval: ["deadLetters:review"] },
    twoPerson: false,
    requires: { fact: "pendingRequest", absent: "no review request on it is pending" },
  },
};

/** The statuses an action applies to, in the order of TASK_ACTION_RULES. */
export function statusesFor(action: TaskAction): TaskStatus[] {
  return Object.keys(TASK_ACTION_RULES[action].needs) as TaskStatus[];
}

/** Whether the action applies to a task in `status` at all, whoever asks. */
export function appliesTo(action: TaskAction, status: TaskStatus): boolean {
  return TASK_ACTION_RULES[action].needs[status] !== undefined;
}

/** A person is expected to act: a review action (anything but cancel) applies to `status`. */
export function awaitsReview(status: TaskStatus): boolean {
  return TASK_ACTIONS.some((action) => action !== "cancel" && appliesTo(action, status));
}

export type ActionPermission =
  | { allowed: true; twoPerson: boolean }
  | { allowed: false; refusal: CommandFailure };

export type AllowedActions = Record<TaskAction, ActionPermission>;

/**
 * May `principal` do `action` to a task in `status` (or with these facts)? Null when yes, the
 * refusal when not: the status first, then the scopes, then a fact the action needs.
 */
export function refusalOf(
  action: TaskAction,
  task: TaskStatus | TaskFacts,
  principal: Pick<Principal, "who" | "scopes">,
): CommandFailure | null {
  const facts: TaskFacts = typeof task === "string" ? { status: task } : task;
  const { status } = facts;
  const rule = TASK_ACTION_RULES[action];
  const needed = rule.needs[status];
  if (!needed) {
    return { ok: false, code: "conflict", message: `cannot ${rule.verb} a task that is ${status}` };
  }
  const missing = needed.find((scope) => !principal.scopes.has(scope));
  if (missing) {
    return {
      ok: false,
      code: "forbidden",
      message: missingScope(principal.who, missing, `${rule.verb} a task that is ${status}`),
    };
  }
  if (rule.requires && facts[rule.requires.fact] === false) {
    return {
      ok: false,
      code: "conflict",
      message: `cannot ${rule.verb} this task: ${rule.requires.absent}`,
    };
  }
  return null;
}

/** The facts an action needs read before refusalOf can judge it (none: the status suffices). */
export function factNeeded(action: TaskAction): TaskFact | null {
  return TASK_ACTION_RULES[action].requires?.fact ?? null;
}

/**
 * Every action for a task: what the screens show and what the commands allow. Given its facts,
 * the actions that need one it lacks are refused too (no "resolve" without an unknown outcome).
 */
export function allowedActions(
  task: TaskFacts,
  principal: Pick<Principal, "who" | "scopes">,
): AllowedActions {
  const out = {} as AllowedActions;
  for (const action of TASK_ACTIONS) {
    const refusal = refusalOf(action, task, principal);
    out[action] = refusal
      ? { allowed: false, refusal }
      : { allowed: true, twoPerson: TASK_ACTION_RULES[action].twoPerson };
  }
  return out;
}

/** The actions a principal may take now, for a screen that only needs the names. */
export function allowedNames(actions: AllowedActions): TaskAction[] {
  return TASK_ACTIONS.filter((a) => actions[a].allowed);
}
