import { describe, expect, it } from "vitest";
import { operator, type Principal, ROLE_SCOPES, ROLES, SCOPES, type Scope } from "./access";
import {
  allowedActions,
  allowedNames,
  appliesTo,
  awaitsReview,
  factNeeded,
  refusalOf,
  statusesFor,
  TASK_ACTION_RULES,
  TASK_ACTIONS,
  type TaskAction,
} from "./task-actions";
import { TASK_STATUSES, type TaskStatus } from "./task-states";

const role = (r: (typeof ROLES)[number]): Principal => ({
  actor: `user:${r}@example.com`,
  who: `the ${r} role`,
  scopes: new Set(ROLE_SCOPES[r]),
});

/**
 * DESIGN.md's rules written out independently of the table: where each action applies and
 * which scopes it needs there. The table must agree with this, cell by cell.
 */
const EXPECTED: Record<TaskAction, Partial<Record<TaskStatus, Scope[]>>> = {
  approve: { awaiting_approval: ["approvals:decide"] },
  resume: { dead: ["deadLetters:review"] },
  reject: {
    awaiting_approval: ["approvals:decide"],
    dead: ["approvals:decide", "deadLetters:review"],
  },
  replay: { dead: ["deadLetters:review"], awaiting_approval: ["deadLetters:review"] },
  correct: { dead: ["deadLetters:review"] },
  resolve: { dead: ["outcomes:resolve"] },
  reconcile: { dead: ["outcomes:resolve"] },
  cancel: {
    queued: ["tasks:cancel"],
    running: ["tasks:cancel"],
    retry_wait: ["tasks:cancel"],
    awaiting_approval: ["tasks:cancel"],
    waiting: ["tasks:cancel"],
    dead: ["tasks:cancel"],
  },
  withdraw: { dead: ["deadLetters:review"], awaiting_approval: ["deadLetters:review"] },
};

describe("the task-actions table", () => {
  for (const r of ROLES) {
    for (const action of TASK_ACTIONS) {
      for (const status of TASK_STATUSES) {
        const needed = EXPECTED[action][status];
        const expectation = !needed
          ? "conflict"
          : needed.every((s) => ROLE_SCOPES[r].includes(s))
            ? "allowed"
            : "forbidden";
        it(`${r} × ${action} × ${status}: ${expectation}`, () => {
          const refusal = refusalOf(action, status, role(r));
          const permission = allowedActions({ status }, role(r))[action];
          if (expectation === "allowed") {
            expect(refusal).toBeNull();
            expect(permission).toEqual({
              allowed: true,
              twoPerson: TASK_ACTION_RULES[action].twoPerson,
            });
            return;
          }
          expect(refusal?.code).toBe(expectation);
          expect(permission).toEqual({ allowed: false, refusal });
          if (expectation === "conflict") {
            expect(refusal?.message).toBe(
              `cannot ${TASK_ACTION_RULES[action].verb} a task that is ${status}`,
            );
          } else {
            const missing = needed?.find((s) => !ROLE_SCOPES[r].includes(s));
            expect(refusal?.message).toBe(
              `the ${r} role may not ${TASK_ACTION_RULES[action].verb} a task that is ${status} (needs ${missing})`,
            );
          }
        });
      }
    }
  }

  it("names every status list once: statusesFor and appliesTo read the same table", () => {
    for (const action of TASK_ACTIONS) {
      expect(statusesFor(action).sort()).toEqual(Object.keys(EXPECTED[action]).sort());
      for (const status of TASK_STATUSES) {
        expect(appliesTo(action, status)).toBe(EXPECTED[action][status] !== undefined);
      }
    }
  });

  it("a principal without a scope is refused even where the action applies", () => {
    const nobody: Principal = { actor: "token:none", who: 'token "none"', scopes: new Set() };
    for (const action of TASK_ACTIONS) {
      for (const status of statusesFor(action)) {
        expect(refusalOf(action, status, nobody)?.code).toBe("forbidden");
      }
    }
    expect(allowedNames(allowedActions({ status: "dead" }, nobody))).toEqual([]);
  });

  it("the operator (CLI) may do everything the table allows somewhere", () => {
    const op = operator("cli:root");
    expect(op.scopes.size).toBe(SCOPES.length);
    expect(allowedNames(allowedActions({ status: "dead" }, op))).toEqual([
      "resume",
      "reject",
      "replay",
      "correct",
      "resolve",
      "reconcile",
      "cancel",
      "withdraw",
    ]);
    expect(allowedNames(allowedActions({ status: "succeeded" }, op))).toEqual([]);
  });

  it("given a task's facts, resolve and reconcile need an unknown outcome, withdraw a pending request", () => {
    const reviewer = role("reviewer");
    const plain = allowedNames(
      allowedActions({ status: "dead", unknownOutcome: false, pendingRequest: false }, reviewer),
    );
    expect(plain).toEqual(["resume", "reject", "replay", "correct"]);
    expect(
      allowedNames(
        allowedActions({ status: "dead", unknownOutcome: true, pendingRequest: true }, reviewer),
      ),
    ).toEqual(["resume", "reject", "replay", "correct", "resolve", "reconcile", "withdraw"]);
    expect(refusalOf("resolve", { status: "dead", unknownOutcome: false }, reviewer)).toEqual({
      ok: false,
      code: "conflict",
      message: "cannot resolve an outcome of this task: it has no effect whose outcome is unknown",
    });
    expect(
      refusalOf("withdraw", { status: "dead", pendingRequest: false }, reviewer)?.message,
    ).toBe("cannot withdraw a review request on this task: no review request on it is pending");
    // The status and the scopes are judged first: a missing scope is still "forbidden".
    expect(refusalOf("resolve", { status: "dead", unknownOutcome: false }, role("ops"))?.code).toBe(
      "forbidden",
    );
    expect(factNeeded("resolve")).toBe("unknownOutcome");
    expect(factNeeded("reconcile")).toBe("unknownOutcome");
    expect(factNeeded("withdraw")).toBe("pendingRequest");
    expect(TASK_ACTIONS.filter((a) => factNeeded(a) === null)).toEqual([
      "approve",
      "resume",
      "reject",
      "replay",
      "correct",
      "cancel",
    ]);
  });

  it("a person is awaited exactly where a review action applies", () => {
    expect(TASK_STATUSES.filter(awaitsReview)).toEqual(["awaiting_approval", "dead"]);
  });

  it("finished tasks take no action at all", () => {
    for (const status of ["succeeded", "rejected", "cancelled"] as const) {
      expect(allowedNames(allowedActions({ status }, operator("cli:root")))).toEqual([]);
    }
  });
});
