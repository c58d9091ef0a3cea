import { describe, expect, it } from "vitest";
import {
  cronProblem,
  nextOccurrence,
  occurrenceKey,
  planDue,
  RUN_EACH_CAP,
  scheduleSpecSchema,
  timezoneProblem,
} from "./schedules";

describe("nextOccurrence", () => {
  it("keeps 09:00 Paris time across the spring DST change (UTC+1 → UTC+2)", () => {
    // Friday 27 March 2026 is CET (UTC+1); Monday 30 March is CEST (UTC+2).
    const friday = nextOccurrence("0 9 * * 1-5", "Europe/Paris", new Date("2026-03-27T07:00:00Z"));
    expect(friday?.toISOString()).toBe("2026-03-27T08:00:00.000Z");
    const monday = nextOccurrence("0 9 * * 1-5", "Europe/Paris", friday ?? new Date(0));
    expect(monday?.toISOString()).toBe("2026-03-30T07:00:00.000Z");
  });

  it("keeps 09:00 New York time across the autumn DST change (UTC-4 → UTC-5)", () => {
    // Saturday 31 October 2026 is EDT; clocks go back on Sunday 1 November.
    const saturday = nextOccurrence(
      "0 9 * * *",
      "America/New_York",
      new Date("2026-10-31T12:00:00Z"),
    );
    expect(saturday?.toISOString()).toBe("2026-10-31T13:00:00.000Z");
    const sunday = nextOccurrence("0 9 * * *", "America/New_York", saturday ?? new Date(0));
    expect(sunday?.toISOString()).toBe("2026-11-01T14:00:00.000Z");
  });

  it("reads a sixth field as seconds", () => {
    const at = nextOccurrence("* * * * * *", "UTC", new Date("2026-01-01T00:00:00.000Z"));
    expect(at?.toISOString()).toBe("2026-01-01T00:00:01.000Z");
  });
});

describe("validation", () => {
  it("names what is wrong with a cron expression or a time zone", () => {
    expect(cronProblem("0 9 * * 1-5")).toBeNull();
    expect(cronProblem("* * * * * *")).toBeNull();
    expect(cronProblem("0 9 * *")).toMatch(/4 fields/);
    expect(cronProblem("0 25 * * *")).toMatch(/not a cron expression/);
    expect(timezoneProblem("Europe/Paris")).toBeNull();
    expect(timezoneProblem("Mars/Olympus")).toMatch(/not an IANA time zone/);
    const parsed = scheduleSpecSchema.safeParse({
      name: "x",
      cron: "* * * * *",
      timezone: "Nope/No",
    });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path).toEqual(["timezone"]);
  });
});

describe("planDue", () => {
  const base = new Date("2026-05-04T10:00:00.000Z");
  // Every minute: now is 30 s after the 10th occurrence after `base`, so the 10 are missed
  // except none (each is older than the on-time grace) and the 11th is in the future.
  const now = new Date(base.getTime() + 10 * 60_000 + 30_000);
  const plan = (missed: "skip" | "run-once" | "run-each") =>
    planDue({ cron: "* * * * *", timezone: "UTC", missed, from: base, now });

  it("skip enqueues none of 10 missed occurrences and moves past them", () => {
    const p = plan("skip");
    expect(p.enqueue).toEqual([]);
    expect(p.skipped).toBe(10);
    expect(p.handledThrough?.toISOString()).toBe("2026-05-04T10:10:00.000Z");
    expect(p.next?.toISOString()).toBe("2026-05-04T10:11:00.000Z");
  });

  it("run-once enqueues only the latest missed occurrence", () => {
    const p = plan("run-once");
    expect(p.enqueue.map((d) => d.toISOString())).toEqual(["2026-05-04T10:10:00.000Z"]);
    expect(p.skipped).toBe(9);
  });

  it("run-each enqueues every missed occurrence, oldest first", () => {
    const p = plan("run-each");
    expect(p.enqueue).toHaveLength(10);
    expect(p.enqueue[0]?.toISOString()).toBe("2026-05-04T10:01:00.000Z");
    expect(p.skipped).toBe(0);
  });

  it("an on-time occurrence is enqueued whatever the policy", () => {
    const p = planDue({
      cron: "* * * * * *",
      timezone: "UTC",
      missed: "skip",
      from: new Date("2026-05-04T10:00:00.000Z"),
      now: new Date("2026-05-04T10:00:02.400Z"),
    });
    expect(p.enqueue.map((d) => d.toISOString())).toEqual([
      "2026-05-04T10:00:01.000Z",
      "2026-05-04T10:00:02.000Z",
    ]);
  });

  it("run-each caps a long outage at the latest RUN_EACH_CAP occurrences", () => {
    const p = planDue({
      cron: "* * * * * *",
      timezone: "UTC",
      missed: "run-each",
      from: new Date("2026-05-04T00:00:00.000Z"),
      now: new Date("2026-05-04T10:00:00.000Z"),
    });
    expect(p.overflow).toBe(true);
    expect(p.enqueue).toHaveLength(RUN_EACH_CAP);
    expect(p.enqueue.at(-1)?.toISOString()).toBe("2026-05-04T10:00:00.000Z");
  });

  it("derives one key per (schedule, occurrence)", () => {
    expect(occurrenceKey("s1", base)).toBe("schedule:s1:2026-05-04T10:00:00.000Z");
  });
});
