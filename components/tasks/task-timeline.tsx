// Where a task's time went: one horizontal bar of its segments (queued, each attempt's run, the
// waits) in proportion to their durations, a legend, and the same segments as a table with
// attempt, start and duration, so nothing depends on hovering or telling colours apart.
import { Fragment } from "react";
import { formatSpan } from "../../lib/domain/task-timeline";
import {
  SEGMENT_LABELS,
  type Segment,
  type SegmentKind,
  type SubSegment,
} from "../../lib/domain/task-timeline-vocabulary";
import type { TaskTimelineViewDto } from "../../lib/server/queries/get-task-timeline";
import { Badge } from "../ui/badge";
import { EmptyState } from "../ui/empty-state";
import { Table, Td, Th } from "../ui/table";
import { Timestamp } from "../ui/timestamp";

/**
 * Fills at shade 600: at least 3:1 against the card in the light theme, and the dark theme's
 * palette turns each hue light enough to keep 3:1 on its dark cards (globals.css). Teal and
 * orange are not remapped; their 600 shades clear 3:1 on both surfaces as they are.
 */
const FILL: Record<SegmentKind, string> = {
  queued: "bg-slate-500",
  running: "bg-sky-600",
  retry_wait: "bg-amber-600",
  rate_limited: "bg-orange-600",
  sleeping: "bg-teal-600",
  budget: "bg-amber-700",
  approval: "bg-violet-600",
  waiting_for_human: "bg-rose-600",
  waiting_for_event: "bg-indigo-600",
  waiting_for_children: "bg-emerald-600",
};

/** A lost run: the run's colour, hatched, so it reads as "no end recorded" without the legend. */
const HATCH = {
  backgroundImage:
    "repeating-linear-gradient(135deg, transparent 0 5px, rgb(255 255 255 / 0.55) 5px 8px)",
};

const END_LABEL = {
  succeeded: "Succeeded",
  dead: "Dead-lettered",
  cancelled: "Cancelled",
  rejected: "Rejected",
} as const;

const SUB_LABEL: Record<SubSegment["kind"], string> = {
  tool: "Tool call",
  model: "Model call",
  step: "Step",
  rate_limited: "Rate-limit wait",
};

function segmentTitle(s: Segment): string {
  return `${SEGMENT_LABELS[s.kind]}, attempt ${s.attempt}: ${formatSpan(s.durationMs)}${s.open ? " so far" : ""}`;
}

function Bar({ segments }: { segments: Segment[] }) {
  return (
    <div
      aria-hidden="true"
      data-timeline-bar
      className="flex h-8 w-full gap-px overflow-hidden rounded-md bg-slate-200"
    >
      {segments.map((s, i) => (
        <div
          // biome-ignore lint/suspicious/noArrayIndexKey: segments are only ever appended
          key={i}
          data-segment={s.kind}
          title={segmentTitle(s)}
          className={`${FILL[s.kind]} relative min-w-1.5`}
          // Proportional to the duration; a zero-length segment keeps its minimum width.
          style={{ flex: `${s.durationMs} 1 0%`, ...(s.lost ? HATCH : {}) }}
        >
          {s.children.map((c, j) =>
            c.start !== null && c.durationMs !== null && s.durationMs > 0 ? (
              <div
                // biome-ignore lint/suspicious/noArrayIndexKey: a run's calls are only ever appended
                key={j}
                data-call={c.kind}
                className="absolute bottom-1 h-1.5 min-w-0.5 rounded-sm bg-white"
                style={{
                  left: `${(100 * (Date.parse(c.start) - Date.parse(s.start))) / s.durationMs}%`,
                  width: `${(100 * c.durationMs) / s.durationMs}%`,
                }}
              />
            ) : null,
          )}
        </div>
      ))}
    </div>
  );
}

function Legend({ segments }: { segments: Segment[] }) {
  const kinds = [...new Set(segments.map((s) => s.kind))];
  const lost = segments.some((s) => s.lost);
  const calls = segments.some((s) => s.children.some((c) => c.durationMs !== null));
  return (
    <ul aria-label="Legend" className="flex flex-wrap gap-x-4 gap-y-1 text-sm text-slate-700">
      {kinds.map((k) => (
        <li key={k} className="flex items-center gap-1.5">
          <span aria-hidden="true" className={`inline-block size-3 rounded-sm ${FILL[k]}`} />
          {SEGMENT_LABELS[k]}
        </li>
      ))}
      {calls ? (
        <li className="flex items-center gap-1.5">
          <span
            aria-hidden="true"
            className={`relative inline-block size-3 rounded-sm ${FILL.running}`}
          >
            <span className="absolute inset-x-0.5 bottom-0.5 h-1 rounded-sm bg-white" />
          </span>
          Call, step or wait inside a run
        </li>
      ) : null}
      {lost ? (
        <li className="flex items-center gap-1.5">
          <span
            aria-hidden="true"
            className={`inline-block size-3 rounded-sm ${FILL.running}`}
            style={HATCH}
          />
          Lost run (no end recorded)
        </li>
      ) : null}
    </ul>
  );
}

function subDuration(c: SubSegment): string {
  if (c.durationMs !== null) return formatSpan(c.durationMs);
  if (c.start !== null) return "in flight or not recorded";
  return "start not recorded";
}

function SegmentRows({ s }: { s: Segment }) {
  return (
    <>
      <tr data-segment-row={s.kind} data-attempt={s.attempt}>
        <Td>
          <span className="flex items-center gap-2">
            <span
              aria-hidden="true"
              className={`inline-block size-3 shrink-0 rounded-sm ${FILL[s.kind]}`}
              style={s.lost ? HATCH : undefined}
            />
            <span className="font-medium text-slate-900">{SEGMENT_LABELS[s.kind]}</span>
            {s.lost ? <Badge tone="bad">lost</Badge> : null}
            {s.open ? (
              <Badge tone="info">{s.kind === "running" ? "still running" : "still waiting"}</Badge>
            ) : null}
          </span>
          {s.note ? <span className="mt-0.5 block text-xs text-slate-600">{s.note}</span> : null}
        </Td>
        <Td align="right">{s.attempt}</Td>
        <Td>
          <Timestamp iso={s.start} />
        </Td>
        <Td align="right">
          <span className="whitespace-nowrap">
            {formatSpan(s.durationMs)}
            {s.open ? " so far" : ""}
          </span>
        </Td>
      </tr>
      {s.children.map((c, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a run's calls are only ever appended
        <tr key={i} data-sub-segment={c.kind}>
          <Td>
            <span className="block pl-5 text-slate-700">
              {SUB_LABEL[c.kind]} <span className="font-mono text-xs">{c.name}</span>
              {c.step !== null ? <span className="text-slate-600"> (step {c.step})</span> : null}
              {c.outcome && c.outcome !== "succeeded" ? (
                <span className="text-slate-600">, {c.outcome.replace("_", " ")}</span>
              ) : null}
            </span>
          </Td>
          <Td align="right">{s.attempt}</Td>
          <Td>
            {c.start !== null ? (
              <Timestamp iso={c.start} />
            ) : c.end !== null ? (
              <span className="text-slate-600">
                ended <Timestamp iso={c.end} />
              </span>
            ) : null}
          </Td>
          <Td align="right">
            <span className={c.durationMs === null ? "text-slate-600" : ""}>{subDuration(c)}</span>
          </Td>
        </tr>
      ))}
    </>
  );
}

export function TaskTimeline({ timeline }: { timeline: TaskTimelineViewDto }) {
  const { segments, end } = timeline;
  if (segments.length === 0) {
    return (
      <EmptyState title="Nothing recorded yet">
        The timeline fills in from the task's ledger: when it was enqueued, claimed and run.
      </EmptyState>
    );
  }
  const last = segments.at(-1);
  return (
    <div className="space-y-4">
      <p className="text-sm text-slate-700" data-timeline-summary>
        {end ? (
          <>
            <span className="font-medium text-slate-900">{END_LABEL[end.kind]}</span> after{" "}
            {formatSpan(timeline.totalMs)}, on attempt {end.attempt}
            {end.note ? ` (${end.note.replace("_", " ")})` : ""}, at <Timestamp iso={end.at} />.
          </>
        ) : last ? (
          <>
            <span className="font-medium text-slate-900">
              {last.kind === "running" ? "Still running" : `${SEGMENT_LABELS[last.kind]}`}
            </span>{" "}
            (attempt {last.attempt}): {formatSpan(timeline.totalMs)} since the first entry.
          </>
        ) : null}
      </p>
      {timeline.truncated ? (
        <p className="text-sm text-amber-900" data-timeline-truncated>
          This task has more than {timeline.entriesRead.toLocaleString("en")} timeline entries: the
          bar shows the first {timeline.entriesRead.toLocaleString("en")}, up to{" "}
          <Timestamp iso={timeline.asOf} />. The Ledger card below has every entry.
        </p>
      ) : null}
      <Bar segments={segments} />
      <Legend segments={segments} />
      <Table caption="Where the task's time went, oldest first: each segment with its attempt, start and duration">
        <thead>
          <tr>
            <Th>Segment</Th>
            <Th align="right">Attempt</Th>
            <Th>Start</Th>
            <Th align="right">Duration</Th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {segments.map((s, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: segments are only ever appended
            <Fragment key={i}>
              <SegmentRows s={s} />
            </Fragment>
          ))}
          {end ? (
            <tr data-segment-row="end">
              <Td>
                <span className="font-medium text-slate-900">{END_LABEL[end.kind]}</span>
              </Td>
              <Td align="right">{end.attempt}</Td>
              <Td>
                <Timestamp iso={end.at} />
              </Td>
              <Td align="right">
                <span className="text-slate-600">end</span>
              </Td>
            </tr>
          ) : null}
        </tbody>
      </Table>
    </div>
  );
}
