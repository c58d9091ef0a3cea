// What a control says after its server action, the same for review dialogs and admin forms.
import { describe, expect, it } from "vitest";
import {
  alertText,
  attempt,
  type Feedback,
  feedbackOf,
  fieldsOf,
  type Outcome,
} from "./action-outcome";

const refused = (status: number, fields: Record<string, string>, message = "email: taken") =>
  ({ ok: false, status, message, fields }) satisfies Feedback;

describe("alertText", () => {
  it("points at the fields when every failing one shows its own message", () => {
    const one = refused(400, { reason: "say why" });
    expect(alertText(one, "Not done", ["reason", "note"])).toBe(
      "Not done: one field needs attention (marked above).",
    );
    const two = refused(400, { email: "must be an email address", password: "too short" });
    expect(alertText(two, "Not saved", "all")).toBe(
      "Not saved: 2 fields need attention (marked above).",
    );
  });

  it("says the action's own message when a failing field is not shown, or none failed", () => {
    const hidden = refused(400, { reason: "say why", taskId: "must be a task id (a UUID)" });
    expect(alertText(hidden, "Not done", ["reason"])).toBe("email: taken");
    expect(alertText(refused(400, {}), "Not saved", "all")).toBe("email: taken");
  });

  it("repeats a refusal that is not a rejected input even when its field shows it", () => {
    // An admin form's 409 (that email exists) marks the field and says it in the alert too.
    const conflict = refused(
      409,
      { email: "a user with email x exists" },
      "a user with email x exists",
    );
    expect(alertText(conflict, "Not saved", "all")).toBe("a user with email x exists");
  });
});

describe("attempt", () => {
  it("passes the action's own answer on", async () => {
    const answer = { ok: false as const, status: 403 as const, error: "no scope" };
    await expect(attempt(async () => answer, 1, "Retry.")).resolves.toBe(answer);
  });

  it("turns a request that throws into a failure that says what to do", async () => {
    const outcome = await attempt(
      async () => {
        throw new Error("fetch failed");
      },
      1,
      "Reload the page and check before trying again.",
    );
    expect(outcome).toEqual({
      ok: false,
      status: 0,
      error:
        "The request did not complete (fetch failed). Reload the page and check before trying again.",
    });
  });
});

describe("feedbackOf and fieldsOf", () => {
  it("says a success in the control's words and keeps a failure's fields", () => {
    expect(feedbackOf({ ok: true, value: 7 }, (v) => `version ${v}`)).toEqual({
      ok: true,
      message: "version 7",
    });
    const failed = feedbackOf(
      { ok: false, status: 400, error: "bad", fields: { a: "x" } },
      () => "",
    );
    expect(failed).toEqual({ ok: false, status: 400, message: "bad", fields: { a: "x" } });
    expect(fieldsOf(failed)).toEqual({ a: "x" });
    const down: Outcome<number> = { ok: false, status: 0, error: "down" };
    expect(fieldsOf(down)).toEqual({});
    expect(fieldsOf(null)).toEqual({});
  });
});
