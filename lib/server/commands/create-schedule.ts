// Adds an admin's schedule (source 'admin') for a published agent, its input checked against
// the agent's published schema; the system stream records it and who added it.
import type pg from "pg";
import { z } from "zod";
import { withTransaction } from "../../../db/client";
import type { ScheduleRow } from "../../../db/schema/schedules";
import type { Principal } from "../../domain/access";
import { type CommandResult, conflict, invalid, refuseWithout } from "../../domain/command-result";
import { scheduleSpecSchema } from "../../domain/schedules";
import { describeIssues } from "../../domain/zod-issues";
import { appendLedger, SYSTEM_STREAM } from "../ledger/append-ledger";
import { SCHEDULE_COLUMNS, scheduleView } from "../schedules/schedule-row";
import { checkAgentInput } from "./task-input";

export const createScheduleSchema = scheduleSpecSchema.extend({
  agent: z.string().min(1, "name the agent"),
});
/** As a form or a shell gives it: the command parses every field and names the one it refuses. */
export type CreateScheduleInput = { [K in keyof z.input<typeof createScheduleSchema>]?: unknown };

export async function createSchedule(
  pool: pg.Pool,
  principal: Principal,
  input: CreateScheduleInput,
): Promise<CommandResult<ScheduleRow>> {
  const refused = refuseWithout(principal, "schedules:write", "add schedules");
  if (refused) return refused;
  const parsed = createScheduleSchema.safeParse(input);
  if (!parsed.success) return invalid(describeIssues(parsed.error));
  const spec = parsed.data;
  return withTransaction(pool, async (client) => {
    const check = await checkAgentInput(client, spec.agent, spec.input ?? null);
    if (!check.ok) return { ok: false as const, code: check.code, message: check.message };
    const { rows } = await client.query<ScheduleRow>(
      `insert into schedules (agent, name, cron, timezone, input, missed, source, created_by, updated_by)
       values ($1, $2, $3, $4, $5, $6, 'admin', $7, $7)
       on conflict (agent, name) do nothing
       returning ${SCHEDULE_COLUMNS}`,
      [
        spec.agent,
        spec.name,
        spec.cron,
        spec.timezone,
        JSON.stringify(spec.input ?? null),
        spec.missed,
        principal.actor,
      ],
    );
    const row = rows[0];
    if (!row) return conflict(`agent ${spec.agent} already has a schedule named "${spec.name}"`);
    await appendLedger(client, SYSTEM_STREAM, {
      kind: "schedule.created",
      actor: principal.actor,
      data: { before: null, after: scheduleView(row) },
    });
    return { ok: true as const, value: row };
  });
}
