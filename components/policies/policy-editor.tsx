"use client";
// Admins edit a retry policy in place: the global floor (every field set; an empty budget is
// unlimited) or one agent's override (an empty field inherits, and the form says what from).
// Durations are typed in seconds, as the page shows them. The form carries the version it was
// loaded at, so two admins editing at once cannot overwrite each other unknowingly.
import { useId, useState } from "react";
import { setPolicyAction } from "../../lib/actions/policies";
import { FORM_FIELD } from "../../lib/domain/policy-form";
import { POLICY_FIELDS, type PolicyField } from "../../lib/domain/retry-policy";
import type { PolicyCellDto, PolicyValuesDto } from "../../lib/server/queries/list-retry-policies";
import {
  FieldError,
  FormFoot,
  fieldsOf,
  inputClass,
  ReviewDialog,
  useDialogReview,
} from "../review/review-kit";
import {
  formatPolicyValue,
  formInputValue,
  POLICY_FIELD_HINT,
  POLICY_FIELD_LABEL,
  POLICY_FIELD_UNIT,
  POLICY_SOURCE_LABEL,
} from "./policy-format";

export type Inherited = Record<PolicyField, PolicyCellDto>;

type Props = {
  scope: string;
  /** The row's version as loaded; null when the scope has no row yet. */
  version: number | null;
  values: PolicyValuesDto | null;
  /** What an empty field falls through to. */
  inherited: Inherited;
  close: () => void;
};

const FORM_FIELDS = POLICY_FIELDS.map((f) => FORM_FIELD[f]);

function PolicyForm({ scope, version, values, inherited, close }: Props) {
  const { feedback, pending, run } = useDialogReview(close);
  const id = useId();
  const errors = fieldsOf(feedback);
  const global = scope === "global";
  return (
    <form
      className="space-y-4"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        const data = new FormData(event.currentTarget);
        const input: Record<string, string> = {
          scope,
          version: version === null ? "" : String(version),
        };
        for (const name of FORM_FIELDS) input[name] = String(data.get(name) ?? "");
        run(
          setPolicyAction,
          input,
          (v) => `Saved the ${scope} policy (version ${v.version}). It applies to later failures.`,
        );
      }}
    >
      <p className="text-sm text-slate-700">
        {global
          ? "The global policy is the floor for every agent: each field is required, except the budget (empty means unlimited)."
          : "An empty field inherits: from the agent's code where it sets the field, otherwise from the global policy."}{" "}
        Durations are in seconds. The change is recorded in the ledger with before, after and you.
      </p>
      <div className="grid gap-4 sm:grid-cols-2">
        {/* The concurrency limit is an agent's own: the global row never sets it. */}
        {POLICY_FIELDS.filter((f) => !global || f !== "concurrencyLimit").map((f) => {
          const name = FORM_FIELD[f];
          const inputId = `${id}-${name}`;
          const from = inherited[f];
          const fallsTo = formatPolicyValue(f, from.value);
          const error = errors[name];
          return (
            <div key={f}>
              <label htmlFor={inputId} className="block text-sm font-medium text-slate-800">
                {POLICY_FIELD_LABEL[f]}{" "}
                <span className="font-normal text-slate-600">({POLICY_FIELD_UNIT[f]})</span>
              </label>
              <input
                id={inputId}
                name={name}
                // Text, not type="number": a browser empties a number input it cannot parse
                // (1e309, a 400-digit timeout), and an empty field here means "inherit", so the
                // bad value would be saved as no value. The server refuses it in words instead.
                type="text"
                inputMode={f === "maxAttempts" || f === "concurrencyLimit" ? "numeric" : "decimal"}
                autoComplete="off"
                spellCheck={false}
                required={global && f !== "budget" && f !== "concurrencyLimit"}
                defaultValue={formInputValue(f, values?.[f])}
                placeholder={
                  from.value === null
                    ? `unlimited (${POLICY_SOURCE_LABEL[from.source]})`
                    : `${formInputValue(f, from.value)} (${POLICY_SOURCE_LABEL[from.source]})`
                }
                className={inputClass}
                aria-invalid={error ? true : undefined}
                aria-describedby={`${inputId}-inherits ${inputId}-hint${error ? ` ${inputId}-error` : ""}`}
              />
              <p
                id={`${inputId}-inherits`}
                data-inherits={f}
                className="mt-1 text-xs font-medium text-slate-700"
              >
                {global
                  ? `Built-in default: ${fallsTo}`
                  : `Empty inherits ${fallsTo} from ${POLICY_SOURCE_LABEL[from.source]}`}
              </p>
              <p id={`${inputId}-hint`} className="mt-0.5 text-xs text-slate-600">
                {POLICY_FIELD_HINT[f]}
              </p>
              <FieldError id={`${inputId}-error`} message={error} />
            </div>
          );
        })}
      </div>
      <FormFoot feedback={feedback} shownFields={FORM_FIELDS} pending={pending} close={close}>
        {pending ? "Saving…" : "Save policy"}
      </FormFoot>
    </form>
  );
}

/** "Edit" for one scope's row (or "Set" when it has none). */
export function EditPolicy({
  scope,
  label,
  version,
  values,
  inherited,
}: {
  scope: string;
  label: string;
  version: number | null;
  values: PolicyValuesDto | null;
  inherited: Inherited;
}) {
  return (
    <ReviewDialog
      label={version === null ? `Set ${label}…` : `Edit ${label}…`}
      title={`Retry policy: ${label}`}
      testId={`edit-policy-${scope}`}
    >
      {(close) => (
        <PolicyForm
          scope={scope}
          version={version}
          values={values}
          inherited={inherited}
          close={close}
        />
      )}
    </ReviewDialog>
  );
}

/** A new override for an agent that has none yet. */
export function AddOverride({ agents }: { agents: { agent: string; inherited: Inherited }[] }) {
  const [chosen, setAgent] = useState(agents[0]?.agent ?? "");
  const id = useId();
  const first = agents[0];
  if (!first) return null;
  // After a save the chosen agent has a row and leaves this list.
  const current = agents.find((a) => a.agent === chosen) ?? first;
  return (
    <div className="flex flex-wrap items-end gap-2">
      <div>
        <label htmlFor={id} className="block text-sm font-medium text-slate-800">
          Add an override for
        </label>
        <select
          id={id}
          value={current.agent}
          onChange={(e) => setAgent(e.target.value)}
          className={`${inputClass} min-w-48`}
        >
          {agents.map((a) => (
            <option key={a.agent} value={a.agent}>
              {a.agent}
            </option>
          ))}
        </select>
      </div>
      <EditPolicy
        key={current.agent}
        scope={`agent:${current.agent}`}
        label={current.agent}
        version={null}
        values={null}
        inherited={current.inherited}
      />
    </div>
  );
}
