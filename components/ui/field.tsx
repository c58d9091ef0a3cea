// A labelled form control tied to its label, its description and the failing field message of
// the last action, so every form marks a bad field the same way for a screen reader.
import type { ReactNode } from "react";
import { FieldError } from "./action-outcome";
import { inputClass } from "./control-styles";

/** What a control needs to be tied to its label, its description and its failing message. */
export type FieldControl = {
  id: string;
  "aria-invalid": true | undefined;
  "aria-describedby": string | undefined;
};

/**
 * A labelled control (`children` renders it with the props that tie it to its label, its
 * description and its failing field message from the last action), the message below it.
 */
export function Field({
  id,
  label,
  hint,
  description,
  error,
  children,
}: {
  id: string;
  label: string;
  /** Beside the label, e.g. "(optional, recorded in the ledger)". */
  hint?: string;
  /** Below the control (`${id}-hint`), read with it: what it takes, what the choices mean. */
  description?: ReactNode;
  error?: string;
  children: (control: FieldControl) => ReactNode;
}) {
  const describedBy = [error ? `${id}-error` : null, description ? `${id}-hint` : null]
    .filter(Boolean)
    .join(" ");
  return (
    <div>
      <label htmlFor={id} className="block text-sm font-medium text-slate-800">
        {label}
        {hint ? (
          <>
            {" "}
            <span className="font-normal text-slate-600">{hint}</span>
          </>
        ) : null}
      </label>
      {children({
        id,
        "aria-invalid": error ? true : undefined,
        "aria-describedby": describedBy || undefined,
      })}
      {description ? (
        <div id={`${id}-hint`} className="mt-1 text-xs text-slate-600">
          {description}
        </div>
      ) : null}
      <FieldError id={`${id}-error`} message={error} />
    </div>
  );
}

/** A labelled one-line text input in a Field: the policy editors' numbers, names and paths. */
export function TextField({
  id,
  name,
  label,
  hint,
  inputMode = "text",
  defaultValue,
  placeholder,
  error,
}: {
  id: string;
  name: string;
  label: string;
  hint?: string;
  inputMode?: "text" | "numeric" | "decimal";
  defaultValue: string;
  placeholder?: string;
  error?: string;
}) {
  return (
    <Field id={id} label={label} hint={hint} error={error}>
      {(control) => (
        <input
          {...control}
          name={name}
          type="text"
          inputMode={inputMode}
          autoComplete="off"
          spellCheck={false}
          defaultValue={defaultValue}
          placeholder={placeholder}
          className={inputClass}
        />
      )}
    </Field>
  );
}
