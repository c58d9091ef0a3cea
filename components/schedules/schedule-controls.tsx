"use client";
import { deleteScheduleAction } from "../../lib/actions/schedules-delete";
// Per-schedule controls for admins: pause or resume (code schedules too), delete (admin's only,
// asks first). A schedule changed meanwhile is refused with what it is now.
import { setSchedulePausedAction } from "../../lib/actions/schedules-pause";
import type { ScheduleDto } from "../../lib/server/queries/list-schedules";
import { ActionMessage, LedgerNote, useAdminAction } from "../admin/action-feedback";
import { ConfirmButton } from "../admin/confirm-button";
import { secondaryButton } from "../ui/control-styles";

export function ScheduleControls({ schedule }: { schedule: ScheduleDto }) {
  const toggle = useAdminAction(setSchedulePausedAction);
  const remove = useAdminAction(deleteScheduleAction);
  const label = `${schedule.agent}/${schedule.name}`;
  const ref = { agent: schedule.agent, name: schedule.name };
  return (
    <div className="flex flex-col items-start gap-1.5">
      <div className="flex flex-wrap gap-2">
        <button
          type="button"
          disabled={toggle.pending}
          className={`${secondaryButton} px-2 py-1 text-xs`}
          aria-label={`${schedule.paused ? "Resume" : "Pause"} ${label}`}
          onClick={() => toggle.run({ ...ref, paused: !schedule.paused })}
        >
          {schedule.paused ? "Resume" : "Pause"}
        </button>
        {schedule.source === "admin" ? (
          <ConfirmButton
            label="Delete"
            question={`Delete ${label}? Tasks it already enqueued stay.`}
            confirmLabel="Yes, delete"
            pending={remove.pending}
            onConfirm={() => remove.run(ref)}
          />
        ) : null}
      </div>
      <ActionMessage
        result={toggle.result}
        className="max-w-xs text-xs"
        success={(value) => (
          <>
            {value.paused ? "Paused" : "Resumed"}.{" "}
            <LedgerNote kind={value.paused ? "schedule.paused" : "schedule.resumed"} />
          </>
        )}
      />
      <ActionMessage
        result={remove.result}
        className="max-w-xs text-xs"
        success={() => (
          <>
            Deleted. <LedgerNote kind="schedule.deleted" />
          </>
        )}
      />
    </div>
  );
}
