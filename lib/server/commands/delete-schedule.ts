// Deletes an admin's schedule. A schedule the code declares comes back with the next worker to
// start, so it is refused: pause it, or remove it from the code.
import type pg from "pg";
import type { Principal } from "../../domain/access";
import { type CommandResult, conflict } from "../../domain/command-result";
import { appendLedger, SYSTEM_STREAM } from "../ledger/append-ledger";
import { scheduleLabel, scheduleView } from "../schedules/schedule-row";
import { onLockedSchedule } from "./set-schedule-paused";

export async function deleteSchedule(
  pool: pg.Pool,
  principal: Principal,
  input: { agent: string; name: string },
): Promise<CommandResult<{ id: string }>> {
  return onLockedSchedule(
    pool,
    principal,
    input,
    "delete schedules",
    async (client, ref, before) => {
      if (before.source === "code") {
        return conflict(
          `${scheduleLabel(ref)} is declared in the agent's code: pause it, or remove it from the code`,
        );
      }
      const deleted = await client.query(
        "delete from schedules where id = $1 and source = 'admin'",
        [before.id],
      );
      if (deleted.rowCount !== 1) return conflict(`${scheduleLabel(ref)} changed meanwhile`);
      await appendLedger(client, SYSTEM_STREAM, {
        kind: "schedule.deleted",
        actor: principal.actor,
        data: { before: scheduleView(before), after: null },
      });
      return { ok: true as const, value: { id: before.id } };
    },
  );
}
