// What every command answers: its value, or why not as a code the adapters map one way each
// (HTTP status, action result, CLI exit): not found, a conflict with the task's state or
// version, input the command refuses, or a principal the command will not act for.
import { missingScope, type Principal, type Scope } from "./access";
import type { TaskStatus } from "./task-states";

export type CommandFailure = {
  ok: false;
  code: "not_found" | "conflict" | "invalid" | "forbidden";
  message: string;
  /** A conflict because the task moved past the version the caller acted on. */
  stale?: true;
};

/** A task command's usual answer: the task's new state. */
export type TaskChange = { id: string; status: TaskStatus; version: number };

export type CommandResult<T = TaskChange> = { ok: true; value: T } | CommandFailure;

export const notFound = (message: string): CommandFailure => ({
  ok: false,
  code: "not_found",
  message,
});

export const conflict = (message: string): CommandFailure => ({
  ok: false,
  code: "conflict",
  message,
});

export const invalid = (message: string): CommandFailure => ({
  ok: false,
  code: "invalid",
  message,
});

export const forbidden = (message: string): CommandFailure => ({
  ok: false,
  code: "forbidden",
  message,
});

/**
 * A command's own scope check, for commands that act on something other than a task (a task
 * action asks lib/domain/task-actions): null when the principal may, the refusal otherwise.
 */
export function refuseWithout(
  principal: Pick<Principal, "who" | "scopes">,
  scope: Scope,
  what = "do this",
): CommandFailure | null {
  return principal.scopes.has(scope) ? null : forbidden(missingScope(principal.who, scope, what));
}
