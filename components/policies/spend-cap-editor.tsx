"use client";
// Admins set an agent's daily spend budget (over all its tasks, and optionally per value of an
// input key such as a customer id), choose whether a task over it waits for the next UTC day or
// dead-letters, or clear it. The form carries the version it was loaded at, so two admins editing
// at once cannot overwrite each other unknowingly.
import { useId } from "react";
import { setSpendCapAction } from "../../lib/actions/policies";
import type { SpendCapDto } from "../../lib/server/queries/list-spend-caps";
import {
  FieldError,
  FormFoot,
  fieldsOf,
  inputClass,
  SettingDialog,
  useDialogReview,
} from "../review/review-kit";
import { TextField } from "../ui/field";

const FIELDS = ["dailyLimit", "keyPath", "keyDailyLimit", "onExceed"] as const;
type Field = (typeof FIELDS)[number];

const LABEL: Record<Exclude<Field, "onExceed">, { text: string; hint: string }> = {
  dailyLimit: { text: "Agent's budget", hint: "per UTC day" },
  keyPath: { text: "Input key", hint: "e.g. customerId" },
  keyDailyLimit: { text: "Budget per key", hint: "per UTC day" },
};

function SpendCapForm({ agent, close }: { agent: SpendCapDto; close: () => void }) {
  const { feedback, pending, run } = useDialogReview(close);
  const id = useId();
  const errors = fieldsOf(feedback);
  const version = agent.cap?.version ?? null;
  const loaded = (name: Exclude<Field, "onExceed">) => {
    const v = agent.cap?.[name];
    return v === null || v === undefined ? "" : String(v);
  };
  return (
    <form
      className="space-y-4"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        const data = new FormData(event.currentTarget);
        const field = (name: Field) => String(data.get(name) ?? "");
        run(
          setSpendCapAction,
          {
            agent: agent.agent,
            version: version === null ? "" : String(version),
            dailyLimit: field("dailyLimit"),
            keyPath: field("keyPath"),
            keyDailyLimit: field("keyDailyLimit"),
            onExceed: field("onExceed"),
          },
          (v) =>
            v.version === null
              ? `Cleared the daily budget of ${agent.agent}.`
              : `Saved the daily budget of ${agent.agent} (version ${v.version}). It applies to the next model call.${v.woken > 0 ? ` ${v.woken} task(s) waiting on the budget run again.` : ""}`,
        );
      }}
    >
      <p className="text-sm text-slate-700">
        Before each model call a worker compares the agent&apos;s spend today (UTC) with its budget;
        over it, the task waits for the next UTC day or dead-letters with reason budget. Each task
        already calling the model when the budget is reached may finish that one call. The per-key
        budget applies per value of a task input field (a dot path); tasks without a plain value
        there are held to the agent&apos;s budget only. Leave both amounts empty to clear the
        budget. The change is recorded in the ledger with before, after and you.
      </p>
      <div className="grid gap-4 sm:grid-cols-2">
        {(["dailyLimit", "keyPath", "keyDailyLimit"] as const).map((name) => {
          const inputId = `${id}-${name}`;
          const error = errors[name];
          return (
            <TextField
              key={name}
              id={inputId}
              name={name}
              label={LABEL[name].text}
              hint={`(${LABEL[name].hint})`}
              inputMode={name === "keyPath" ? "text" : "decimal"}
              defaultValue={loaded(name)}
              error={error}
            />
          );
        })}
        <div>
          <label htmlFor={`${id}-onExceed`} className="block text-sm font-medium text-slate-800">
            Over the budget
          </label>
          <select
            id={`${id}-onExceed`}
            name="onExceed"
            defaultValue={agent.cap?.onExceed ?? "wait"}
            className={inputClass}
            aria-invalid={errors.onExceed ? true : undefined}
          >
            <option value="wait">Wait for the next UTC day</option>
            <option value="dead">Dead-letter (reason budget)</option>
          </select>
          <FieldError id={`${id}-onExceed-error`} message={errors.onExceed} />
        </div>
      </div>
      <FormFoot feedback={feedback} shownFields={FIELDS} pending={pending} close={close}>
        {pending ? "Saving…" : "Save budget"}
      </FormFoot>
    </form>
  );
}

export function EditSpendCap({ agent }: { agent: SpendCapDto }) {
  return (
    <SettingDialog
      isSet={agent.cap !== null}
      subject={agent.agent}
      noun="budget"
      title={`Daily budget: ${agent.agent}`}
      testId={`edit-spend-cap-${agent.agent}`}
    >
      {(close) => <SpendCapForm agent={agent} close={close} />}
    </SettingDialog>
  );
}
