// Where a task's time went, from its ledger stream alone: how long it waited to be claimed, each
// attempt's run with its tool and model calls, the waits between (retry, rate limit, sleep, an
// approval, a person, an event, its children) and how it ended. Pure: the caller reads the entries
// and says what "now" is, so a task still running or waiting shows its open segment up to then.
import { ATTEMPT_STARTED_KIND, attemptStartOf } from "./attempt-start";
import { type DurationUnits, twoLargestUnits } from "./duration-units";
import { effectStartOf } from "./effect-start";
import type { JsonValue } from "./json";
import { numberOf, stringOf } from "./loose-read";
import type {
  Segment,
  SegmentKind,
  TaskTimeline,
  TimelineEnd,
  TimelineEntry,
} from "./task-timeline-vocabulary";

type Rec = { [key: string]: JsonValue | undefined };
const rec = (v: JsonValue): Rec =>
  v !== null && typeof v === "object" && !Array.isArray(v) ? v : {};
const ms = (iso: string): number => new Date(iso).getTime();
const span = (start: string, end: string): number => Math.max(0, ms(end) - ms(start));

/**
 * A call's or step's recorded start (ISO), kept inside its run: the worker's clock may be a
 * little off the database's that stamps the entries, and a call cannot begin before its
 * attempt or after it finished. Null when not recorded or not a time.
 */
function startedAt(v: JsonValue | undefined, runStart: string, end: string): string | null {
  const at = stringOf(v);
  if (at === null || Number.isNaN(ms(at))) return null;
  const clamped = Math.min(Math.max(ms(at), ms(runStart)), ms(end));
  return new Date(clamped).toISOString();
}

type Open = Omit<Segment, "end" | "durationMs" | "open"> & {
  /** A dead letter: the end, unless a person resumes it (then a wait for a person). */
  dead?: TimelineEnd;
  /** The run's last effect entry was a rate limit: a requeue after it waits for the limit. */
  rateLimited?: boolean;
};

export function buildTaskTimeline(entries: readonly TimelineEntry[], now: string): TaskTimeline {
  const sorted = [...entries].sort((a, b) => a.seq - b.seq);
  const segments: Segment[] = [];
  let open: Open | null = null;
  let end: TimelineEnd | null = null;
  let lastAttempt = 0;
  // Where the last closed segment ended: a gap until the next one was spent queued.
  let lastEnd: string | null = null;

  const close = (at: string, extra: Partial<Segment> = {}) => {
    if (!open) return;
    const { dead: _dead, rateLimited: _rl, ...rest } = open;
    const endAt = ms(at) < ms(open.start) ? open.start : at;
    segments.push({
      ...rest,
      end: endAt,
      durationMs: span(open.start, endAt),
      open: false,
      ...extra,
    });
    lastEnd = endAt;
    open = null;
  };
  const begin = (kind: SegmentKind, at: string, attempt: number, note: string | null = null) => {
    if (open) close(at);
    else if (kind === "running" && lastEnd !== null && ms(at) > ms(lastEnd)) {
      // Resumed (a wait ended, a person approved): from then until the claim, it queued.
      segments.push({
        kind: "queued",
        attempt,
        start: lastEnd,
        end: at,
        durationMs: span(lastEnd, at),
        open: false,
        lost: false,
        note: null,
        children: [],
      });
    }
    open = { kind, attempt, start: at, lost: false, note, children: [] };
  };
  const attemptOf = (d: Rec) => numberOf(d.attempt) ?? lastAttempt;

  // An attempt's start, from its attempt.started entry or folded into its first entry
  // (attempt-start.ts); a start carried twice (two parallel first appends) counts once.
  let lastStart: string | null = null;
  const startAttempt = (at: string, recorded: number | null) => {
    if (lastStart === `${recorded}@${at}`) return;
    lastStart = `${recorded}@${at}`;
    const current = open as Open | null;
    const attempt = recorded ?? lastAttempt + 1;
    if (current?.kind === "running") {
      const last = segments.at(-1);
      // A join re-checked its children and parked again without spending an attempt (one
      // children.waiting entry per join, not per check): still the same wait.
      if (
        last?.kind === "waiting_for_children" &&
        last.end === current.start &&
        current.attempt === attempt &&
        current.children.length === 0
      ) {
        segments.pop();
        open = { ...last, children: [] };
        lastEnd = null;
      } else {
        close(at, { lost: true, note: "no end recorded: its worker stopped or was lost" });
      }
    } else if (current?.kind === "queued" || current?.kind === "sleeping") {
      current.attempt = attempt;
    } else if (current?.dead) {
      // Resumed from the dead letters by a path that left no review entry in view.
      close(at, { kind: "waiting_for_human" });
    }
    begin("running", at, attempt);
    lastAttempt = attempt;
  };

  for (const e of sorted) {
    const d = rec(e.data);
    const started = attemptStartOf(e);
    if (started) startAttempt(started.at, started.attempt);
    if (e.kind === ATTEMPT_STARTED_KIND) continue;
    const current = open as Open | null;
    // A claim to act opens the tool's call: an effect.started entry, or the claim carried by the
    // entry that ended it (which then closes it below). A lapsed claim, found by a later
    // attempt, belongs to the attempt that died with it.
    const claim = effectStartOf(e);
    if (claim && !claim.lapsed && current?.kind === "running") {
      current.rateLimited = false;
      current.children.push({
        kind: "tool",
        name: stringOf(d.tool) ?? "tool",
        step: numberOf(d.step),
        start: startedAt(claim.at, current.start, e.at) ?? e.at,
        end: null,
        durationMs: null,
        outcome: "in_flight",
      });
    }
    switch (e.kind) {
      case "task.enqueued":
        if (!current && segments.length === 0) {
          open = { kind: "queued", attempt: 1, start: e.at, lost: false, note: null, children: [] };
        }
        break;
      case "effect.succeeded":
      case "effect.failed":
      case "effect.outcome_unknown":
      case "effect.rate_limited": {
        if (current?.kind !== "running") break;
        const outcome = e.kind.slice("effect.".length);
        const call = current.children.findLast(
          (c) =>
            c.kind === "tool" &&
            c.end === null &&
            (numberOf(d.step) === null || c.step === numberOf(d.step)) &&
            (stringOf(d.tool) === null || c.name === stringOf(d.tool)),
        );
        if (call) {
          call.end = e.at;
          call.durationMs = call.start === null ? null : span(call.start, e.at);
          call.outcome = outcome;
        }
        if (e.kind === "effect.rate_limited") {
          current.rateLimited = true;
          const waitMs = numberOf(d.waitMs);
          // Waited inside the attempt (short waits): the run includes the wait.
          if (waitMs !== null && d.handedBack === false) {
            current.children.push({
              kind: "rate_limited",
              name: stringOf(d.tool) ?? "tool",
              step: numberOf(d.step),
              start: e.at,
              end: new Date(ms(e.at) + waitMs).toISOString(),
              durationMs: waitMs,
              outcome: null,
            });
          }
        }
        break;
      }
      case "model.called":
      case "step.completed": {
        if (current?.kind !== "running") break;
        const kind = e.kind === "model.called" ? "model" : stringOf(d.kind);
        // A tool step's call is already there from its effect entries.
        if (kind === "tool") break;
        const start = startedAt(d.startedAt, current.start, e.at);
        current.children.push({
          kind: kind === "model" ? "model" : "step",
          name: stringOf(e.kind === "model.called" ? d.model : d.name) ?? kind ?? "step",
          step: numberOf(d.step),
          start,
          end: e.at,
          durationMs: start === null ? null : span(start, e.at),
          outcome: null,
        });
        break;
      }
      case "attempt.failed":
        if (current?.kind === "running") close(e.at, { note: "failed" });
        break;
      case "worker.lost":
        if (current?.kind === "running") close(e.at, { lost: true, note: "worker lost" });
        break;
      case "retry.scheduled":
        begin("retry_wait", e.at, attemptOf(d), null);
        break;
      case "task.requeued": {
        const why = stringOf(d.why) ?? "";
        const kind: SegmentKind =
          // A budget wait (worker/runtime/spend-cap.ts) records the amounts beside why.
          d.budget !== undefined
            ? "budget"
            : current?.rateLimited || /rate limit/i.test(why)
              ? "rate_limited"
              : why.startsWith("sleeping")
                ? "sleeping"
                : "queued";
        begin(kind, e.at, attemptOf(d), why || null);
        break;
      }
      case "approval.requested":
        begin("approval", e.at, attemptOf(d), stringOf(d.tool));
        break;
      case "event.waiting":
        begin("waiting_for_event", e.at, attemptOf(d), null);
        break;
      case "event.delivered":
        if (current?.kind === "waiting_for_event") close(e.at, { note: "event delivered" });
        break;
      case "children.waiting":
        begin("waiting_for_children", e.at, attemptOf(d), null);
        break;
      case "review.approved":
      case "replay.requested":
      case "outcome.resolved": {
        if (e.kind === "outcome.resolved" && d.resumed === false) break;
        const how =
          e.kind === "review.approved"
            ? "approved"
            : e.kind === "replay.requested"
              ? "replayed"
              : "outcome resolved";
        if (current?.dead) close(e.at, { kind: "waiting_for_human", note: `dead letter ${how}` });
        else if (current?.kind === "approval") close(e.at, { note: how });
        break;
      }
      case "task.succeeded":
        if (current?.kind === "running") close(e.at, { note: "succeeded" });
        else if (current) close(e.at);
        end = { kind: "succeeded", at: e.at, attempt: attemptOf(d), note: null };
        break;
      case "task.dead_lettered": {
        if (current?.kind === "running") close(e.at, { note: "failed" });
        else if (current) close(e.at);
        const attempt = attemptOf(d);
        const dead: TimelineEnd = { kind: "dead", at: e.at, attempt, note: stringOf(d.reason) };
        open = {
          kind: "waiting_for_human",
          attempt,
          start: e.at,
          lost: false,
          note: null,
          children: [],
          dead,
        };
        end = null;
        break;
      }
      case "review.rejected":
      case "task.cancelled": {
        const kind = e.kind === "task.cancelled" ? "cancelled" : "rejected";
        // A dead letter a person cancelled or rejected was waiting for that person.
        if (current) close(e.at, { note: kind });
        end = { kind, at: e.at, attempt: attemptOf(d) || lastAttempt, note: null };
        break;
      }
    }
  }

  const last = open as Open | null;
  if (last?.dead) end = last.dead;
  else if (last && !end) {
    const endAt = ms(now) < ms(last.start) ? last.start : now;
    const { dead: _d, rateLimited: _r, ...rest } = last;
    segments.push({ ...rest, end: endAt, durationMs: span(last.start, endAt), open: true });
  }
  const first = segments[0];
  const stop = end?.at ?? segments.at(-1)?.end;
  return {
    segments,
    end,
    totalMs: first && stop ? span(first.start, stop) : 0,
  };
}

const SPAN_UNITS: DurationUnits = [
  ["d", 86_400],
  ["h", 3_600],
  ["min", 60],
  ["s", 1],
];

/** "340 ms", "1.2 s", "3 min 4 s", "2 h 5 min", "3 d 4 h": readable at a glance. */
export function formatSpan(durationMs: number): string {
  const total = Math.max(0, Math.round(durationMs));
  if (total < 1000) return `${total} ms`;
  if (total < 60_000) {
    const s = Math.round(total / 100) / 10;
    return s >= 60 ? "1 min" : `${Number.isInteger(s) ? s.toFixed(0) : s.toFixed(1)} s`;
  }
  return twoLargestUnits(Math.round(total / 1000), SPAN_UNITS);
}
