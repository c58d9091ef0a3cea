import { describe, expect, it } from "vitest";
import { attemptStartData, attemptStartOf, withAttemptStart } from "./attempt-start";

const at = new Date("2026-12-07T08:00:01.000Z");

describe("attemptStartOf", () => {
  it("reads an attempt.started entry (older ledgers), dated by the entry", () => {
    expect(
      attemptStartOf({
        kind: "attempt.started",
        at,
        actor: "worker:w1",
        data: { attempt: 2, agent: "refund", version: "1.4.0" },
      }),
    ).toEqual({
      attempt: 2,
      agent: "refund",
      version: "1.4.0",
      at: "2026-12-07T08:00:01.000Z",
      actor: "worker:w1",
    });
  });

  it("reads a start folded into an entry of any kind, dated by the claim", () => {
    const data = withAttemptStart(
      { attempt: 1, tool: "send_email" },
      attemptStartData({
        attempt: 1,
        agent: "mailer",
        version: null,
        at: "2026-12-07T08:00:00.500Z",
      }),
    );
    expect(data).toEqual({
      attempt: 1,
      tool: "send_email",
      attemptStarted: { attempt: 1, agent: "mailer", at: "2026-12-07T08:00:00.500Z" },
    });
    expect(attemptStartOf({ kind: "effect.started", at, actor: "worker:w2", data })).toEqual({
      attempt: 1,
      agent: "mailer",
      version: null,
      at: "2026-12-07T08:00:00.500Z",
      actor: "worker:w2",
    });
  });

  it("names the worker that held the attempt when another actor closed it (the reaper)", () => {
    const data = withAttemptStart(
      { attempt: 3, worker: "gone" },
      attemptStartData({ attempt: 3, agent: "a", at, actor: "worker:gone" }),
    );
    expect(attemptStartOf({ kind: "worker.lost", at, actor: "worker:reaper", data })?.actor).toBe(
      "worker:gone",
    );
  });

  it("is null for an entry that starts no attempt", () => {
    expect(attemptStartOf({ kind: "effect.succeeded", at, data: { attempt: 1 } })).toBeNull();
    expect(attemptStartOf({ kind: "task.succeeded", at, data: null })).toBeNull();
    expect(attemptStartOf({ kind: "note.added", at, data: { attemptStarted: "x" } })).toBeNull();
  });
});
