"use client";
// Adding a schedule: agent (from the catalog), name, cron, time zone, missed policy and the input
// as JSON. Each field's refusal shows beside it, in the words of the schema that refused it.
import { useId, useRef } from "react";
import { createScheduleAction } from "../../lib/actions/schedules-create";
import { MISSED_POLICIES } from "../../lib/domain/schedule-vocabulary";
import { ActionMessage, LedgerNote, useAdminAction } from "../admin/action-feedback";
import { FieldError, fieldsOf } from "../ui/action-outcome";
import { inputClass, primaryButton } from "../ui/control-styles";

const MISSED_HINTS: Record<(typeof MISSED_POLICIES)[number], string> = {
  skip: "skip: occurrences missed while no worker ran are not enqueued",
  "run-once": "run-once: only the latest missed occurrence is enqueued",
  "run-each": "run-each: every missed occurrence is enqueued (at most 1,000)",
};

export function ScheduleForm({ agents }: { agents: string[] }) {
  const id = useId();
  const form = useRef<HTMLFormElement>(null);
  const create = useAdminAction(createScheduleAction);
  const fields = fieldsOf(create.result);
  const field = (name: string) => `${id}-${name}`;
  const text = (name: string, label: string, props: { placeholder?: string; hint?: string }) => (
    <div>
      <label htmlFor={field(name)} className="block text-sm font-medium text-slate-800">
        {label}
      </label>
      <input
        id={field(name)}
        name={name}
        required
        autoComplete="off"
        placeholder={props.placeholder}
        aria-invalid={fields[name] ? true : undefined}
        aria-describedby={fields[name] ? `${field(name)}-error` : `${field(name)}-hint`}
        className={`${inputClass} font-mono`}
      />
      {props.hint ? (
        <p id={`${field(name)}-hint`} className="mt-1 text-xs text-slate-600">
          {props.hint}
        </p>
      ) : null}
      <FieldError id={`${field(name)}-error`} message={fields[name]} />
    </div>
  );
  return (
    <form
      ref={form}
      noValidate
      aria-label="Add a schedule"
      className="space-y-4"
      onSubmit={(event) => {
        event.preventDefault();
        const data = new FormData(event.currentTarget);
        create.run(
          {
            agent: data.get("agent"),
            name: data.get("name"),
            cron: data.get("cron"),
            timezone: data.get("timezone"),
            missed: data.get("missed"),
            input: data.get("input"),
          },
          () => form.current?.reset(),
        );
      }}
    >
      <div className="grid gap-4 sm:grid-cols-2">
        <div>
          <label htmlFor={field("agent")} className="block text-sm font-medium text-slate-800">
            Agent
          </label>
          <select
            id={field("agent")}
            name="agent"
            className={inputClass}
            aria-invalid={fields.agent ? true : undefined}
          >
            {agents.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </select>
          <FieldError id={`${field("agent")}-error`} message={fields.agent} />
        </div>
        {text("name", "Name", { placeholder: "weekday-reminders" })}
        {text("cron", "Cron", {
          placeholder: "0 9 * * 1-5",
          hint: "minute hour day month weekday; a sixth field first is seconds",
        })}
        {text("timezone", "Time zone", {
          placeholder: "Europe/Paris",
          hint: "an IANA name, e.g. UTC",
        })}
        <div>
          <label htmlFor={field("missed")} className="block text-sm font-medium text-slate-800">
            Missed occurrences
          </label>
          <select id={field("missed")} name="missed" className={inputClass}>
            {MISSED_POLICIES.map((m) => (
              <option key={m} value={m}>
                {MISSED_HINTS[m]}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor={field("input")} className="block text-sm font-medium text-slate-800">
            Input (JSON)
          </label>
          <textarea
            id={field("input")}
            name="input"
            rows={3}
            defaultValue="{}"
            aria-invalid={fields.input ? true : undefined}
            aria-describedby={fields.input ? `${field("input")}-error` : undefined}
            className={`${inputClass} font-mono`}
          />
          <FieldError id={`${field("input")}-error`} message={fields.input} />
        </div>
      </div>
      <div className="flex items-center gap-3">
        <button type="submit" disabled={create.pending} className={primaryButton}>
          Add schedule
        </button>
        <ActionMessage
          result={create.result}
          fieldsShown
          className="text-sm"
          success={() => (
            <>
              Added. <LedgerNote kind="schedule.created" />
            </>
          )}
        />
      </div>
    </form>
  );
}
