import { describe, expect, it } from "vitest";
import type { JsonValue } from "./json";
import { buildTaskTimeline, formatSpan } from "./task-timeline";
import type { TimelineEntry } from "./task-timeline-vocabulary";

const T0 = Date.parse("2026-12-03T09:00:00Z");
/** An instant `s` seconds after T0. */
const t = (s: number) => new Date(T0 + s * 1000).toISOString();

function stream(...rows: [number, string, JsonValue?, string?][]): TimelineEntry[] {
  return rows.map(([s, kind, data, key], i) => ({
    seq: i + 1,
    at: t(s),
    kind,
    key: key ?? null,
    data: data ?? {},
  }));
}

/** kind/attempt/seconds of each segment, for compact expectations. */
const shape = (entries: TimelineEntry[], now = t(1000)) =>
  buildTaskTimeline(entries, now).segments.map((s) => [s.kind, s.attempt, s.durationMs / 1000]);

describe("buildTaskTimeline", () => {
  it("queued until claimed, a run with its tool and model calls, and the end", () => {
    const entries = stream(
      [0, "task.enqueued"],
      [2, "attempt.started", { attempt: 1 }],
      [3, "effect.started", { tool: "send_email", step: 1, attempt: 1 }, "k1"],
      [4.5, "effect.succeeded", { tool: "send_email", step: 1, attempt: 1 }, "k1"],
      [6, "model.called", { step: 2, model: "demo-model" }],
      [7, "step.completed", { step: 3, kind: "step", name: "summarize" }],
      [7, "step.completed", { step: 1, kind: "tool", name: "send_email" }],
      [8, "task.succeeded", { attempt: 1 }],
    );
    const timeline = buildTaskTimeline(entries, t(1000));
    expect(shape(entries)).toEqual([
      ["queued", 1, 2],
      ["running", 1, 6],
    ]);
    expect(timeline.end).toEqual({ kind: "succeeded", at: t(8), attempt: 1, note: null });
    expect(timeline.totalMs).toBe(8000);
    expect(timeline.segments[1]?.children).toEqual([
      {
        kind: "tool",
        name: "send_email",
        step: 1,
        start: t(3),
        end: t(4.5),
        durationMs: 1500,
        outcome: "succeeded",
      },
      {
        kind: "model",
        name: "demo-model",
        step: 2,
        start: null,
        end: t(6),
        durationMs: null,
        outcome: null,
      },
      {
        kind: "step",
        name: "summarize",
        step: 3,
        start: null,
        end: t(7),
        durationMs: null,
        outcome: null,
      },
    ]);
  });

  it("a tool call whose claim rides on its result: from the claim to the result", () => {
    const entries = stream(
      [0, "task.enqueued"],
      [
        4.5,
        "effect.succeeded",
        {
          tool: "send_email",
          step: 1,
          attempt: 1,
          attemptStarted: { attempt: 1, agent: "mailer", at: t(2) },
          effectStarted: { at: t(3), args: {}, fingerprint: "f" },
        },
        "k1",
      ],
      [5, "task.succeeded", { attempt: 1 }],
    );
    expect(shape(entries)).toEqual([
      ["queued", 1, 2],
      ["running", 1, 3],
    ]);
    expect(buildTaskTimeline(entries, t(1000)).segments[1]?.children).toEqual([
      {
        kind: "tool",
        name: "send_email",
        step: 1,
        start: t(3),
        end: t(4.5),
        durationMs: 1500,
        outcome: "succeeded",
      },
    ]);
  });

  it("a failed attempt, its retry wait, and the next claim", () => {
    const entries = stream(
      [0, "task.enqueued"],
      [1, "attempt.started", { attempt: 1 }],
      [2, "effect.started", { tool: "flaky", step: 1 }, "k"],
      [3, "effect.failed", { tool: "flaky", step: 1 }, "k"],
      [3, "attempt.failed", { attempt: 1 }],
      [3, "retry.scheduled", { attempt: 1, runAt: t(13) }],
      [14, "attempt.started", { attempt: 2 }],
      [15, "task.succeeded", { attempt: 2 }],
    );
    expect(shape(entries)).toEqual([
      ["queued", 1, 1],
      ["running", 1, 2],
      ["retry_wait", 1, 11],
      ["running", 2, 1],
    ]);
    const segments = buildTaskTimeline(entries, t(1000)).segments;
    expect(segments[1]?.note).toBe("failed");
    expect(segments[1]?.children[0]?.outcome).toBe("failed");
  });

  it("a crashed attempt with no end entry ends where the next starts, labelled lost", () => {
    const entries = stream(
      [0, "task.enqueued"],
      [1, "attempt.started", { attempt: 1 }],
      [2, "effect.started", { tool: "charge", step: 1 }, "k"],
      [30, "attempt.started", { attempt: 2 }],
      [31, "task.succeeded", { attempt: 2 }],
    );
    const segments = buildTaskTimeline(entries, t(1000)).segments;
    expect(segments.map((s) => [s.kind, s.attempt, s.lost])).toEqual([
      ["queued", 1, false],
      ["running", 1, true],
      ["running", 2, false],
    ]);
    expect(segments[1]?.end).toBe(t(30));
    // The tool call never recorded its end: no duration is made up for it.
    expect(segments[1]?.children[0]).toMatchObject({ end: null, durationMs: null });
  });

  it("a lease the reaper took back: lost, then its retry wait", () => {
    const entries = stream(
      [0, "attempt.started", { attempt: 1 }],
      [20, "worker.lost", { attempt: 1 }],
      [20, "retry.scheduled", { attempt: 1 }],
      [25, "attempt.started", { attempt: 2 }],
    );
    const timeline = buildTaskTimeline(entries, t(40));
    expect(timeline.segments.map((s) => [s.kind, s.attempt, s.lost, s.open])).toEqual([
      ["running", 1, true, false],
      ["retry_wait", 1, false, false],
      ["running", 2, false, true],
    ]);
    expect(timeline.end).toBeNull();
    expect(timeline.segments.at(-1)?.durationMs).toBe(15_000);
  });

  it("model calls and steps that record when they began are drawn with their durations", () => {
    const entries = stream(
      [0, "task.enqueued"],
      [2, "attempt.started", { attempt: 1 }],
      [6, "model.called", { step: 1, model: "demo-model", startedAt: t(3.5) }],
      [9, "step.completed", { step: 2, kind: "step", name: "summarize", startedAt: t(6.25) }],
      // A worker clock ahead of the database's: kept inside the run, never a negative duration.
      [10, "step.completed", { step: 3, kind: "spawn", name: "child", startedAt: t(11) }],
      // Behind it: not before the attempt began.
      [12, "model.called", { step: 4, model: "demo-model", startedAt: t(1) }],
      // Not a time: as if not recorded.
      [13, "step.completed", { step: 5, kind: "step", name: "odd", startedAt: "soon" }],
      [14, "task.succeeded", { attempt: 1 }],
    );
    const children = buildTaskTimeline(entries, t(1000)).segments[1]?.children ?? [];
    expect(children.map((c) => [c.kind, c.name, c.start, c.end, c.durationMs])).toEqual([
      ["model", "demo-model", t(3.5), t(6), 2500],
      ["step", "summarize", t(6.25), t(9), 2750],
      ["step", "child", t(10), t(10), 0],
      ["model", "demo-model", t(2), t(12), 10_000],
      ["step", "odd", null, t(13), null],
    ]);
  });

  it("entries out of order are read in stream order, and missing starts do not break it", () => {
    const entries = stream(
      [0, "task.enqueued"],
      [1, "attempt.started", { attempt: 1 }],
      [2, "attempt.failed", { attempt: 1 }],
      [2, "retry.scheduled", { attempt: 1 }],
      [5, "attempt.started", { attempt: 2 }],
      [6, "task.succeeded", { attempt: 2 }],
    );
    expect(shape([...entries].reverse())).toEqual(shape(entries));
    // An end whose start is not in view (the stream's beginning was not read) is skipped.
    expect(shape(entries.slice(2))).toEqual([
      ["retry_wait", 1, 3],
      ["running", 2, 1],
    ]);
    // A clock that ran backwards gives 0, never a negative duration.
    const skewed = stream([10, "attempt.started", { attempt: 1 }], [9, "task.succeeded"]);
    expect(shape(skewed)).toEqual([["running", 1, 0]]);
  });

  it("waiting for an approval, then queued until claimed again", () => {
    const entries = stream(
      [0, "task.enqueued"],
      [0, "attempt.started", { attempt: 1 }],
      [1, "approval.requested", { attempt: 1, tool: "refund" }],
      [61, "review.approved", { from: "awaiting_approval" }],
      [62, "attempt.started", { attempt: 2 }],
      [63, "task.succeeded", { attempt: 2 }],
    );
    expect(shape(entries)).toEqual([
      ["queued", 1, 0],
      ["running", 1, 1],
      ["approval", 1, 60],
      ["queued", 2, 1],
      ["running", 2, 1],
    ]);
    expect(buildTaskTimeline(entries, t(99)).segments[2]?.note).toBe("approved");
  });

  it("a dead letter is the end, unless a person resumes it: then it waited for that person", () => {
    const dead = stream(
      [0, "attempt.started", { attempt: 1 }],
      [1, "attempt.failed", { attempt: 1 }],
      [1, "task.dead_lettered", { attempt: 1, reason: "outcome_unknown" }],
    );
    const ended = buildTaskTimeline(dead, t(500));
    expect(ended.segments.map((s) => s.kind)).toEqual(["running"]);
    expect(ended.end).toEqual({ kind: "dead", at: t(1), attempt: 1, note: "outcome_unknown" });

    const resumed = stream(
      [0, "attempt.started", { attempt: 1 }],
      [1, "attempt.failed", { attempt: 1 }],
      [1, "task.dead_lettered", { attempt: 1, reason: "outcome_unknown" }],
      [301, "outcome.resolved", { happened: true, resumed: true }],
      [303, "attempt.started", { attempt: 2 }],
    );
    const timeline = buildTaskTimeline(resumed, t(310));
    expect(shape(resumed, t(310))).toEqual([
      ["running", 1, 1],
      ["waiting_for_human", 1, 300],
      ["queued", 2, 2],
      ["running", 2, 7],
    ]);
    expect(timeline.segments[1]?.note).toBe("dead letter outcome resolved");
    expect(timeline.end).toBeNull();

    const cancelled = stream(
      [0, "attempt.started", { attempt: 1 }],
      [1, "task.dead_lettered", { attempt: 1, reason: "exhausted" }],
      [11, "task.cancelled", {}],
    );
    expect(shape(cancelled)).toEqual([
      ["running", 1, 1],
      ["waiting_for_human", 1, 10],
    ]);
    expect(buildTaskTimeline(cancelled, t(99)).end?.kind).toBe("cancelled");
  });

  it("a rejected approval ends the task", () => {
    const entries = stream(
      [0, "attempt.started", { attempt: 1 }],
      [1, "approval.requested", { attempt: 1, tool: "refund" }],
      [5, "review.rejected", {}],
    );
    const timeline = buildTaskTimeline(entries, t(99));
    expect(shape(entries)).toEqual([
      ["running", 1, 1],
      ["approval", 1, 4],
    ]);
    expect(timeline.end).toMatchObject({ kind: "rejected", at: t(5), attempt: 1 });
  });

  it("waiting for an event: delivered, then queued until claimed", () => {
    const entries = stream(
      [0, "attempt.started", { attempt: 1 }],
      [1, "event.waiting", { attempt: 1, match: { order: "A1" } }],
      [41, "event.delivered", { event: "e1" }],
      [42, "attempt.started", { attempt: 1 }],
      [43, "task.succeeded", { attempt: 1 }],
    );
    expect(shape(entries)).toEqual([
      ["running", 1, 1],
      ["waiting_for_event", 1, 40],
      ["queued", 1, 1],
      ["running", 1, 1],
    ]);
  });

  it("still waiting for an event: open up to now", () => {
    const entries = stream(
      [0, "attempt.started", { attempt: 1 }],
      [1, "event.waiting", { attempt: 1 }],
    );
    const timeline = buildTaskTimeline(entries, t(100));
    expect(timeline.segments.at(-1)).toMatchObject({
      kind: "waiting_for_event",
      open: true,
      end: t(100),
      durationMs: 99_000,
    });
    expect(timeline.end).toBeNull();
  });

  it("waiting for children: a join's re-checks stay one wait, not lost attempts", () => {
    const entries = stream(
      [0, "attempt.started", { attempt: 1 }],
      [1, "children.waiting", { attempt: 1, children: 2, open: 2 }],
      [31, "attempt.started", { attempt: 1 }],
      [61, "attempt.started", { attempt: 1 }],
      [62, "task.succeeded", { attempt: 1 }],
    );
    const segments = buildTaskTimeline(entries, t(99)).segments;
    expect(segments.map((s) => [s.kind, s.attempt, s.durationMs / 1000, s.lost])).toEqual([
      ["running", 1, 1, false],
      ["waiting_for_children", 1, 60, false],
      ["running", 1, 1, false],
    ]);
  });

  it("rate limited: handed back until the slot frees, or waited inside the run", () => {
    const handedBack = stream(
      [0, "attempt.started", { attempt: 1 }],
      [1, "effect.started", { tool: "sms", step: 1 }, "k"],
      [1, "effect.rate_limited", { tool: "sms", step: 1, waitMs: 30_000, handedBack: true }, "k"],
      [1, "task.requeued", { attempt: 1, why: "sms's rate limit (1 per 60000 ms)" }],
      [31, "attempt.started", { attempt: 1 }],
      [32, "task.succeeded", { attempt: 1 }],
    );
    expect(shape(handedBack)).toEqual([
      ["running", 1, 1],
      ["rate_limited", 1, 30],
      ["running", 1, 1],
    ]);
    const waited = stream(
      [0, "attempt.started", { attempt: 1 }],
      [1, "effect.rate_limited", { tool: "sms", step: 1, waitMs: 2_000, handedBack: false }, "k"],
      [3, "effect.started", { tool: "sms", step: 1 }, "k"],
      [4, "effect.succeeded", { tool: "sms", step: 1 }, "k"],
      [4, "task.succeeded", { attempt: 1 }],
    );
    const run = buildTaskTimeline(waited, t(99)).segments[0];
    expect(run?.children.map((c) => [c.kind, c.durationMs])).toEqual([
      ["rate_limited", 2000],
      ["tool", 1000],
    ]);
  });

  it("a sleep hands the task back until its time: a sleeping segment", () => {
    const entries = stream(
      [0, "attempt.started", { attempt: 1 }],
      [1, "task.requeued", { attempt: 1, why: `sleeping until ${t(11)}` }],
      [11, "attempt.started", { attempt: 1 }],
    );
    expect(shape(entries, t(12))).toEqual([
      ["running", 1, 1],
      ["sleeping", 1, 10],
      ["running", 1, 1],
    ]);
  });

  it("still queued: never claimed", () => {
    const timeline = buildTaskTimeline(stream([0, "task.enqueued"]), t(5));
    expect(timeline.segments).toMatchObject([{ kind: "queued", attempt: 1, open: true }]);
    expect(timeline.totalMs).toBe(5000);
    expect(buildTaskTimeline([], t(5))).toEqual({ segments: [], end: null, totalMs: 0 });
  });
});

describe("formatSpan", () => {
  it("reads at a glance", () => {
    expect(formatSpan(340)).toBe("340 ms");
    expect(formatSpan(1_200)).toBe("1.2 s");
    expect(formatSpan(12_000)).toBe("12 s");
    expect(formatSpan(59_990)).toBe("1 min");
    expect(formatSpan(184_000)).toBe("3 min 4 s");
    expect(formatSpan(2 * 3_600_000 + 5 * 60_000)).toBe("2 h 5 min");
    expect(formatSpan(3 * 86_400_000 + 4 * 3_600_000 + 99_000)).toBe("3 d 4 h");
    expect(formatSpan(-5)).toBe("0 ms");
  });
});

describe("buildTaskTimeline over folded starts", () => {
  /** The same stream as today's runtime writes it: each attempt.started folded into the next entry. */
  const fold = (entries: TimelineEntry[]): TimelineEntry[] => {
    const out: TimelineEntry[] = [];
    let start: { attempt: JsonValue; agent: string; at: string } | null = null;
    for (const e of entries) {
      if (e.kind === "attempt.started") {
        const d = e.data as { attempt: JsonValue };
        start = { attempt: d.attempt, agent: "a", at: e.at };
        continue;
      }
      const data = start ? { ...(e.data as object), attemptStarted: start } : e.data;
      start = null;
      out.push({ ...e, seq: out.length + 1, data: data as JsonValue });
    }
    return out;
  };
  const streams: [string, TimelineEntry[]][] = [
    [
      "a run with a tool call",
      stream(
        [0, "task.enqueued"],
        [2, "attempt.started", { attempt: 1 }],
        [3, "effect.started", { tool: "send_email", step: 1, attempt: 1 }, "k1"],
        [4.5, "effect.succeeded", { tool: "send_email", step: 1, attempt: 1 }, "k1"],
        [8, "task.succeeded", { attempt: 1 }],
      ),
    ],
    [
      "a failure, a retry, a success that is the attempt's only entry",
      stream(
        [0, "task.enqueued"],
        [1, "attempt.started", { attempt: 1 }],
        [3, "attempt.failed", { attempt: 1 }],
        [3, "retry.scheduled", { attempt: 1, runAt: t(10) }],
        [11, "attempt.started", { attempt: 2 }],
        [12, "task.succeeded", { attempt: 2 }],
      ),
    ],
    [
      "a crash before the attempt's first entry, closed by the reaper",
      stream(
        [0, "task.enqueued"],
        [1, "attempt.started", { attempt: 1 }],
        [40, "worker.lost", { attempt: 1, worker: "w1" }],
        [40, "retry.scheduled", { attempt: 1, runAt: t(45) }],
        [46, "attempt.started", { attempt: 2 }],
        [50, "task.succeeded", { attempt: 2 }],
      ),
    ],
    [
      "a running attempt",
      stream([0, "task.enqueued"], [5, "attempt.started", { attempt: 1 }], [9, "model.called", {}]),
    ],
  ];
  for (const [name, entries] of streams) {
    it(`reads the folded form as the separate one: ${name}`, () => {
      const folded = fold(entries);
      expect(folded.some((e) => e.kind === "attempt.started")).toBe(false);
      expect(buildTaskTimeline(folded, t(100))).toEqual(buildTaskTimeline(entries, t(100)));
    });
  }

  it("a start carried twice (two parallel first appends) is one attempt", () => {
    const start = { attempt: 1, agent: "a", at: t(2) };
    const entries = stream(
      [0, "task.enqueued"],
      [3, "effect.started", { tool: "x", step: 1, attempt: 1, attemptStarted: start }, "k1"],
      [3, "effect.started", { tool: "y", step: 2, attempt: 1, attemptStarted: start }, "k2"],
      [5, "task.succeeded", { attempt: 1 }],
    );
    expect(shape(entries)).toEqual([
      ["queued", 1, 2],
      ["running", 1, 3],
    ]);
  });
});
