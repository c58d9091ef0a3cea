"use client";
// Admins edit a retry policy in place: the global floor (every field set; an empty budget is
// unlimited) or one agent's override (an empty field inherits). The form carries the version it
// was loaded at, so two admins editing at once cannot overwrite each other unknowingly.
import { useId, useState } from "react";
import { setPolicyAction } from "../../lib/actions/policies";
import type { PolicyField, PolicyValuesDto } from "../../lib/server/queries/list-retry-policies";
import { POLICY_FIELD_HINT, POLICY_FIELD_LABEL } from "../policies/policy-format";
import { useAnnounce } from "./announcer";
import {
  FieldError,
  fieldsOf,
  inputClass,
  primaryButton,
  ReviewDialog,
  ReviewFeedback,
  secondaryButton,
  useReview,
} from "./review-kit";

const FIELDS: readonly PolicyField[] = [
  "maxAttempts",
  "backoffInitialMs",
  "backoffFactor",
  "backoffMaxMs",
  "attemptTimeoutMs",
  "budget",
];

const UNIT: Record<PolicyField, string> = {
  maxAttempts: "attempts",
  backoffInitialMs: "ms",
  backoffFactor: "×",
  backoffMaxMs: "ms",
  attemptTimeoutMs: "ms",
  budget: "cost units",
};

type Props = {
  scope: string;
  /** The row's version as loaded; null when the scope has no row yet. */
  version: number | null;
  values: PolicyValuesDto | null;
  close: () => void;
};

function PolicyForm({ scope, version, values, close }: Props) {
  const { feedback, pending, run } = useReview();
  const announce = useAnnounce();
  const id = useId();
  const fields = fieldsOf(feedback);
  const global = scope === "global";
  return (
    <form
      className="space-y-4"
      onSubmit={(event) => {
        event.preventDefault();
        const data = new FormData(event.currentTarget);
        const input: Record<string, string> = {
          scope,
          version: version === null ? "" : String(version),
        };
        for (const f of FIELDS) input[f] = String(data.get(f) ?? "");
        run(
          setPolicyAction,
          input,
          (v) => `Saved the ${scope} policy (version ${v.version}). It applies to later failures.`,
          (_, message) => {
            close();
            announce(message);
          },
        );
      }}
    >
      <p className="text-sm text-slate-700">
        {global
          ? "The global policy is the floor for every agent: each field is required, except the budget (empty means unlimited)."
          : "An empty field inherits from the global policy."}{" "}
        The change is recorded in the ledger with before, after and you.
      </p>
      <div className="grid gap-4 sm:grid-cols-2">
        {FIELDS.map((f) => {
          const inputId = `${id}-${f}`;
          const current = values?.[f];
          return (
            <div key={f}>
              <label htmlFor={inputId} className="block text-sm font-medium text-slate-800">
                {POLICY_FIELD_LABEL[f]}{" "}
                <span className="font-normal text-slate-600">({UNIT[f]})</span>
              </label>
              <input
                id={inputId}
                name={f}
                type="number"
                inputMode="decimal"
                min={
                  f === "maxAttempts" || f === "attemptTimeoutMs" || f === "backoffFactor" ? 1 : 0
                }
                step={f === "backoffFactor" || f === "budget" ? "any" : 1}
                required={global && f !== "budget"}
                defaultValue={current === null || current === undefined ? "" : String(current)}
                placeholder={global ? (f === "budget" ? "unlimited" : "") : "inherits"}
                className={inputClass}
                aria-invalid={fields[f] ? true : undefined}
                aria-describedby={`${inputId}-hint${fields[f] ? ` ${inputId}-error` : ""}`}
              />
              <p id={`${inputId}-hint`} className="mt-1 text-xs text-slate-600">
                {POLICY_FIELD_HINT[f]}
              </p>
              <FieldError id={`${inputId}-error`} message={fields[f]} />
            </div>
          );
        })}
      </div>
      <ReviewFeedback feedback={feedback} shownFields={FIELDS} />
      <div className="flex gap-2">
        <button type="submit" className={primaryButton} disabled={pending}>
          {pending ? "Saving…" : "Save policy"}
        </button>
        <button type="button" className={secondaryButton} onClick={close}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** "Edit" for one scope's row (or "Set" when it has none). */
export function EditPolicy({
  scope,
  label,
  version,
  values,
}: {
  scope: string;
  label: string;
  version: number | null;
  values: PolicyValuesDto | null;
}) {
  return (
    <ReviewDialog
      label={version === null ? `Set ${label}…` : `Edit ${label}…`}
      title={`Retry policy: ${label}`}
      testId={`edit-policy-${scope}`}
    >
      {(close) => <PolicyForm scope={scope} version={version} values={values} close={close} />}
    </ReviewDialog>
  );
}

/** A new override for an agent that has none yet. */
export function AddOverride({ agents }: { agents: string[] }) {
  const [chosen, setAgent] = useState(agents[0] ?? "");
  const id = useId();
  if (agents.length === 0) return null;
  // After a save the chosen agent has a row and leaves this list.
  const agent = agents.includes(chosen) ? chosen : (agents[0] ?? "");
  return (
    <div className="flex flex-wrap items-end gap-2">
      <div>
        <label htmlFor={id} className="block text-sm font-medium text-slate-800">
          Add an override for
        </label>
        <select
          id={id}
          value={agent}
          onChange={(e) => setAgent(e.target.value)}
          className={`${inputClass} min-w-48`}
        >
          {agents.map((a) => (
            <option key={a} value={a}>
              {a}
            </option>
          ))}
        </select>
      </div>
      <EditPolicy key={agent} scope={`agent:${agent}`} label={agent} version={null} values={null} />
    </div>
  );
}
