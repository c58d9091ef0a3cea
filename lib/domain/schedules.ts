// Schedules: a cron expression (seconds allowed) read in an IANA time zone, and the pure decision
// of which occurrences a tick enqueues. The worker and the admin commands both come here; the
// enqueue key of an occurrence is derived here only. The vocabulary is schedule-vocabulary.ts.
import { Cron } from "croner";
import { z } from "zod";
import { MISSED_POLICIES, type MissedPolicy } from "./schedule-vocabulary";

export {
  MISSED_POLICIES,
  type MissedPolicy,
  SCHEDULE_SOURCES,
  type ScheduleSource,
} from "./schedule-vocabulary";

/** The most occurrences one tick enqueues for a schedule under run-each; older ones are skipped. */
export const RUN_EACH_CAP = 1000;

/**
 * How late an occurrence may be and still count as on time rather than missed: ticks come
 * every few hundred milliseconds, so an occurrence older than this means no worker ticked.
 */
export const ON_TIME_GRACE_MS = 10_000;

export const SCHEDULE_NAME_PATTERN = /^[a-z0-9][a-z0-9_.-]{0,63}$/;

/** Why `cron` is not a cron expression croner reads (5 fields, or 6 with seconds first), or null. */
export function cronProblem(cron: string): string | null {
  const fields = cron.trim().split(/\s+/).length;
  if (fields !== 5 && fields !== 6) {
    return `"${cron}" has ${fields} fields; a cron expression has 5 (minute hour day month weekday) or 6 (seconds first)`;
  }
  try {
    new Cron(cron, { paused: true, mode: "5-or-6-parts" });
    return null;
  } catch (err) {
    return `"${cron}" is not a cron expression: ${err instanceof Error ? err.message : String(err)}`;
  }
}

/** Why `timezone` is not an IANA time zone this runtime knows, or null. */
export function timezoneProblem(timezone: string): string | null {
  try {
    new Intl.DateTimeFormat("en", { timeZone: timezone });
    return null;
  } catch {
    return `"${timezone}" is not an IANA time zone (e.g. "Europe/Paris", "UTC")`;
  }
}

export const scheduleNameSchema = z
  .string()
  .regex(
    SCHEDULE_NAME_PATTERN,
    "1 to 64 lower-case letters, digits, '.', '_' or '-', starting with a letter or digit",
  );

export const cronSchema = z.string().superRefine((cron, ctx) => {
  const problem = cronProblem(cron);
  if (problem) ctx.addIssue({ code: "custom", message: problem });
});

export const timezoneSchema = z.string().superRefine((tz, ctx) => {
  const problem = timezoneProblem(tz);
  if (problem) ctx.addIssue({ code: "custom", message: problem });
});

export const missedPolicySchema = z.enum(MISSED_POLICIES);

/** A schedule as code declares it and an admin adds it; the input is checked against the agent apart. */
export const scheduleSpecSchema = z.object({
  name: scheduleNameSchema,
  cron: cronSchema,
  timezone: timezoneSchema.default("UTC"),
  input: z.unknown().optional(),
  missed: missedPolicySchema.default("skip"),
});
export type ScheduleSpec = z.output<typeof scheduleSpecSchema>;

function cronOf(cron: string, timezone: string): Cron {
  return new Cron(cron, { paused: true, timezone, mode: "5-or-6-parts" });
}

/** The first occurrence strictly after `after`, or null when the expression never fires again. */
export function nextOccurrence(cron: string, timezone: string, after: Date): Date | null {
  return cronOf(cron, timezone).nextRun(after);
}

/**
 * The enqueue key of one occurrence: the same for every worker that computes it, so the
 * tasks table's unique key makes a second enqueue of it return the first task.
 */
export function occurrenceKey(scheduleId: string, occurrence: Date): string {
  return `schedule:${scheduleId}:${occurrence.toISOString()}`;
}

export type DuePlan = {
  /** Occurrences to enqueue, oldest first. */
  enqueue: Date[];
  /** Missed occurrences not enqueued (a lower bound when `overflow`). */
  skipped: number;
  /** More than RUN_EACH_CAP were due: only the latest were looked at. */
  overflow: boolean;
  /** The latest occurrence handled (enqueued or skipped); null when none was due. */
  handledThrough: Date | null;
  /** The first occurrence after now, or null when the expression never fires again. */
  next: Date | null;
};

/**
 * Which occurrences in (from, now] a tick enqueues. An occurrence within ON_TIME_GRACE_MS of
 * now is on time and always enqueued; older ones were missed and follow the policy: skip
 * enqueues none of them, run-once the latest, run-each all (the latest RUN_EACH_CAP at most).
 */
export function planDue(args: {
  cron: string;
  timezone: string;
  missed: MissedPolicy;
  from: Date;
  now: Date;
}): DuePlan {
  const cron = cronOf(args.cron, args.timezone);
  const nowMs = args.now.getTime();
  const due: Date[] = [];
  let cursor: Date | null = cron.nextRun(args.from);
  while (cursor && cursor.getTime() <= nowMs && due.length <= RUN_EACH_CAP) {
    due.push(cursor);
    cursor = cron.nextRun(cursor);
  }
  let overflow = false;
  if (cursor && cursor.getTime() <= nowMs) {
    // Far behind: read the latest occurrences back from now instead of walking to it.
    overflow = true;
    due.length = 0;
    const latest = cron.previousRuns(RUN_EACH_CAP, new Date(nowMs + 1)).reverse();
    due.push(...latest.filter((d) => d.getTime() > args.from.getTime() && d.getTime() <= nowMs));
  }
  const next = cron.nextRun(args.now);
  const handledThrough = due.at(-1) ?? null;
  const onTimeFrom = nowMs - ON_TIME_GRACE_MS;
  const missed = due.filter((d) => d.getTime() < onTimeFrom);
  const onTime = due.filter((d) => d.getTime() >= onTimeFrom);
  let enqueue: Date[];
  if (args.missed === "run-each") enqueue = due.slice(-RUN_EACH_CAP);
  else if (args.missed === "run-once") enqueue = [...missed.slice(-1), ...onTime];
  else enqueue = onTime;
  return {
    enqueue,
    skipped: due.length - enqueue.length,
    overflow,
    handledThrough,
    next,
  };
}
