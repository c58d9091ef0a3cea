// Deletes an admin's schedule. A schedule the code declares comes back with the next worker to
// start, so it is refused: pause it, or remove it from the code.
import type pg from "pg";
import { withTransaction } from "../../../db/client";
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
import { lockSchedule, scheduleLabel, scheduleView } from "../schedules/schedule-row";
import { scheduleRefSchema } from "./set-schedule-paused";

export async function deleteSchedule(
  pool: pg.Pool,
  principal: Principal,
  input: { agent: string; name: string },
): Promise<CommandResult<{ id: string }>> {
  const refused = refuseWithout(principal, "schedules:write", "delete schedules");
  if (refused) return refused;
  const parsed = scheduleRefSchema.safeParse(input);
  if (!parsed.success) return invalid(describeIssues(parsed.error));
  const ref = parsed.data;
  return withTransaction(pool, async (client) => {
    const before = await lockSchedule(client, ref);
    if (!before) return notFound(`there is no ${scheduleLabel(ref)}`);
    if (before.source === "code") {
      return conflict(
        `${scheduleLabel(ref)} is declared in the agent's code: pause it, or remove it from the code`,
      );
    }
    const deleted = await client.query("delete from schedules where id = $1 and source = 'admin'", [
      before.id,
    ]);
    if (deleted.rowCount !== 1) return conflict(`${scheduleLabel(ref)} changed meanwhile`);
    await appendLedger(client, SYSTEM_STREAM, {
      kind: "schedule.deleted",
      actor: principal.actor,
      data: { before: scheduleView(before), after: null },
    });
    return { ok: true as const, value: { id: before.id } };
  });
}
