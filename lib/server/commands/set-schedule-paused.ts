// Pauses or resumes a schedule, code's or admin's (a code schedule's pause survives its workers
// publishing it again). Resuming under the `skip` policy moves last_occurrence_at to now, so the
// occurrences of the pause are skipped, not backfilled; run-once and run-each catch up at the
// next tick as after any outage.
import type pg from "pg";
import { z } from "zod";
import { withTransaction } from "../../../db/client";
import type { ScheduleRow } from "../../../db/schema/schedules";
import type { Principal } from "../../domain/access";
import {
  type CommandResult,
  conflict,
  invalid,
  notFound,
  refuseWithout,
} from "../../domain/command-result";
import { describeIssues } from "../../domain/zod-issues";
import { appendLedger, SYSTEM_STREAM } from "../ledger/append-ledger";
import {
  lockSchedule,
  SCHEDULE_COLUMNS,
  scheduleLabel,
  scheduleView,
} from "../schedules/schedule-row";

export const scheduleRefSchema = z.object({
  agent: z.string().min(1, "name the agent"),
  name: z.string().min(1, "name the schedule"),
});

/**
 * What pausing, resuming and deleting share: the scope, the schedule named by `input`, and
 * `act` on its row locked in a transaction (refused when there is no such schedule).
 */
export async function onLockedSchedule<T>(
  pool: pg.Pool,
  principal: Principal,
  input: { agent: string; name: string },
  what: string,
  act: (
    client: pg.PoolClient,
    ref: z.infer<typeof scheduleRefSchema>,
    before: ScheduleRow,
  ) => Promise<CommandResult<T>>,
): Promise<CommandResult<T>> {
  const refused = refuseWithout(principal, "schedules:write", what);
  if (refused) return refused;
  const parsed = scheduleRefSchema.safeParse(input);
  if (!parsed.success) return invalid(describeIssues(parsed.error));
  const ref = parsed.data;
  return withTransaction(pool, async (client) => {
    const before = await lockSchedule(client, ref);
    if (!before) return notFound(`there is no ${scheduleLabel(ref)}`);
    return act(client, ref, before);
  });
}

export async function setSchedulePaused(
  pool: pg.Pool,
  principal: Principal,
  input: { agent: string; name: string; paused: boolean },
): Promise<CommandResult<ScheduleRow>> {
  const verb = input.paused ? "pause" : "resume";
  return onLockedSchedule(
    pool,
    principal,
    input,
    `${verb} schedules`,
    async (client, ref, before) => {
      const { rows } = await client.query<ScheduleRow>(
        `update schedules
          set paused = $3, updated_by = $4, updated_at = now(),
              last_occurrence_at = case when not $3 and missed = 'skip'
                                        then greatest(last_occurrence_at, date_trunc('milliseconds', clock_timestamp()))
                                        else last_occurrence_at end,
              -- Planned again at the next tick.
              next_occurrence_at = null
        where id = $1 and paused = $2
        returning ${SCHEDULE_COLUMNS}`,
        [before.id, !input.paused, input.paused, principal.actor],
      );
      const after = rows[0];
      if (!after) {
        return conflict(`${scheduleLabel(ref)} is already ${input.paused ? "paused" : "running"}`);
      }
      await appendLedger(client, SYSTEM_STREAM, {
        kind: input.paused ? "schedule.paused" : "schedule.resumed",
        actor: principal.actor,
        data: {
          before: scheduleView(before),
          after: scheduleView(after),
          ...(input.paused
            ? {}
            : {
                skippedThrough:
                  after.missed === "skip" ? (after.lastOccurrenceAt?.toISOString() ?? null) : null,
              }),
        },
      });
      return { ok: true as const, value: after };
    },
  );
}
