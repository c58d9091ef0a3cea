// The task timeline's vocabulary: the ledger kinds it reads, the entry it takes, and what it
// returns (segment kinds and their labels, segments, sub-segments, the end). Pure.
import type { JsonValue } from "./json";

/** The entries the timeline reads; the query asks for these kinds only. */
export const TIMELINE_KINDS = [
  "task.enqueued",
  "attempt.started",
  "attempt.failed",
  "worker.lost",
  "retry.scheduled",
  "task.requeued",
  "task.succeeded",
  "task.dead_lettered",
  "task.cancelled",
  "approval.requested",
  "review.approved",
  "review.rejected",
  "replay.requested",
  "outcome.resolved",
  "event.waiting",
  "event.delivered",
  "children.waiting",
  "effect.started",
  "effect.succeeded",
  "effect.failed",
  "effect.outcome_unknown",
  "effect.rate_limited",
  "model.called",
  "step.completed",
] as const;

export type TimelineEntry = {
  /** The entry's place in its stream: the order the timeline follows, whatever the clocks say. */
  seq: number;
  /** ISO 8601. */
  at: string;
  kind: string;
  key: string | null;
  data: JsonValue;
};

export const SEGMENT_KINDS = [
  "queued",
  "running",
  "retry_wait",
  "rate_limited",
  "sleeping",
  "budget",
  "approval",
  "waiting_for_human",
  "waiting_for_event",
  "waiting_for_children",
] as const;
export type SegmentKind = (typeof SEGMENT_KINDS)[number];

export const SEGMENT_LABELS: Record<SegmentKind, string> = {
  queued: "Queued",
  running: "Running",
  retry_wait: "Retry wait",
  rate_limited: "Rate limited",
  sleeping: "Sleeping",
  budget: "Waiting for budget",
  approval: "Waiting for approval",
  waiting_for_human: "Waiting for a person",
  waiting_for_event: "Waiting for an event",
  waiting_for_children: "Waiting for children",
};

/** A tool call, a model call or a step inside one attempt's run. */
export type SubSegment = {
  kind: "tool" | "model" | "step" | "rate_limited";
  /** The tool's, model's or step's name. */
  name: string;
  /** The step's number in the journal, when the entry says. */
  step: number | null;
  /**
   * Null where only the end is recorded: model calls and steps journal when they finish, and
   * only entries written since they carry `startedAt` say when they began.
   */
  start: string | null;
  /** Null while a tool call is still in flight (or its result was never recorded). */
  end: string | null;
  /** Null unless both ends are recorded. */
  durationMs: number | null;
  /** "succeeded", "failed", "outcome_unknown", "rate_limited", "in_flight"; null for markers. */
  outcome: string | null;
};

export type Segment = {
  kind: SegmentKind;
  /** The attempt it belongs to: the one it ran, waited after, or (queued) was claimed for. */
  attempt: number;
  start: string;
  end: string;
  durationMs: number;
  /** Still running or still waiting: it ends at `now`, not at an entry. */
  open: boolean;
  /** A run with no end entry (a crashed worker): it ends where the next attempt starts. */
  lost: boolean;
  /** How it ended or why it waited, in a few words; null when the kind says it all. */
  note: string | null;
  /** For a run: its tool calls, model calls and steps in ledger order. */
  children: SubSegment[];
};

export type TimelineEnd = {
  kind: "succeeded" | "dead" | "cancelled" | "rejected";
  at: string;
  attempt: number;
  note: string | null;
};

export type TaskTimeline = {
  segments: Segment[];
  /** How the task ended; null while it still runs or waits. */
  end: TimelineEnd | null;
  /** From the first segment's start to the end (or now). */
  totalMs: number;
};
