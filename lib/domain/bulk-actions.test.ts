// Who may decide on a bulk action that waits for a second reviewer: anyone the task-actions
// table lets take its action on a dead task, except the one who froze it, and only while it waits.
import { describe, expect, it } from "vitest";
import { principalOf, scopesForRole } from "./access";
import { confirmRefusal, declineRefusal } from "./bulk-actions";

const person = (role: "reviewer" | "ops" | "admin", email: string) =>
  principalOf({
    kind: "user",
    id: email,
    email,
    name: email,
    role,
    scopes: scopesForRole(role),
    sessionId: email,
  });
const ann = person("reviewer", "ann@example.com");
const bob = person("reviewer", "bob@example.com");
const olga = person("ops", "olga@example.com");
const waiting = {
  action: "replay" as const,
  status: "awaiting_second" as const,
  requestedBy: ann.actor,
  memberCount: 120,
};

describe("deciding on a waiting bulk action", () => {
  it("is for a different reviewer, who may confirm and decline alike", () => {
    expect(confirmRefusal(waiting, bob)).toBeNull();
    expect(declineRefusal(waiting, bob)).toBeNull();
  });

  it("is not for the one who froze it, who is told they may withdraw it", () => {
    expect(confirmRefusal(waiting, ann)).toEqual({
      ok: false,
      code: "conflict",
      message:
        "a second, different reviewer must decide: you froze this set of 120 tasks (you may withdraw it)",
    });
  });

  it("is not for a role the table refuses the action, nor once it no longer waits", () => {
    expect(declineRefusal(waiting, olga)).toMatchObject({ ok: false, code: "forbidden" });
    expect(confirmRefusal({ ...waiting, status: "running" }, bob)).toMatchObject({
      ok: false,
      code: "conflict",
      message: expect.stringContaining("this bulk action is running"),
    });
  });
});
