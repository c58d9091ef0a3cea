"use client";
// Creating an API token: a name and the scopes it needs (presets copy a role's scopes). The
// secret comes back from the action once and is shown until dismissed.
import { useRef, useState } from "react";
import { createTokenAction } from "../../lib/actions/tokens";
import type { Scope } from "../../lib/domain/access";
import { FieldError, fieldsOf } from "../ui/action-outcome";
import { inputClass, primaryButton, secondaryButton } from "../ui/control-styles";
import { Field } from "../ui/field";
import { ActionMessage, useAdminAction } from "./action-feedback";
import { OneTimeSecret } from "./one-time-secret";
import { SCOPE_DESCRIPTIONS } from "./scope-labels";

export function CreateTokenForm({
  scopes,
  presets,
}: {
  scopes: readonly Scope[];
  /** A role's scopes, offered as a starting point. */
  presets: { label: string; scopes: readonly Scope[] }[];
}) {
  const form = useRef<HTMLFormElement>(null);
  const [chosen, setChosen] = useState<ReadonlySet<Scope>>(new Set());
  const [created, setCreated] = useState<{ name: string; token: string } | null>(null);
  const { result, pending, run, clear } = useAdminAction(createTokenAction);
  const fields = fieldsOf(result);

  const toggle = (scope: Scope, on: boolean) => {
    const next = new Set(chosen);
    if (on) next.add(scope);
    else next.delete(scope);
    setChosen(next);
  };

  return (
    <div className="space-y-4">
      {created ? (
        <OneTimeSecret
          heading={`Token “${created.name}” created.`}
          label="The new API token"
          value={created.token}
          testId="new-token"
          ledgerKind="token.created"
          onDone={() => {
            setCreated(null);
            clear();
          }}
        >
          Only its hash is stored, so nobody can show it later. If it is lost, revoke it and create
          another.
        </OneTimeSecret>
      ) : null}
      <form
        ref={form}
        noValidate
        aria-label="Create an API token"
        className="space-y-4"
        onSubmit={(event) => {
          event.preventDefault();
          const data = new FormData(event.currentTarget);
          setCreated(null);
          run({ name: data.get("name"), scopes: [...chosen] }, (value) => {
            setCreated({ name: value.name, token: value.token });
            setChosen(new Set());
            form.current?.reset();
          });
        }}
      >
        <div className="max-w-md">
          <Field
            id="token-name"
            label="Name"
            error={fields.name}
            description="What uses it. Letters, digits, spaces, . _ -; unique among active tokens."
          >
            {(control) => (
              <input
                {...control}
                name="name"
                autoComplete="off"
                required
                placeholder="e.g. billing-service"
                className={inputClass}
              />
            )}
          </Field>
        </div>
        <fieldset aria-describedby={fields.scopes ? "token-scopes-error" : undefined}>
          <legend className="text-sm font-medium text-slate-800">Scopes</legend>
          <div className="mt-1 flex flex-wrap items-center gap-2 text-sm text-slate-600">
            <span>Same as a role:</span>
            {presets.map((p) => (
              <button
                key={p.label}
                type="button"
                className={`${secondaryButton} px-2 py-0.5 text-xs`}
                onClick={() => setChosen(new Set(p.scopes))}
              >
                {p.label}
              </button>
            ))}
            <button
              type="button"
              className={`${secondaryButton} px-2 py-0.5 text-xs`}
              onClick={() => setChosen(new Set())}
            >
              none
            </button>
          </div>
          <ul className="mt-2 grid gap-x-6 gap-y-1 sm:grid-cols-2 lg:grid-cols-3">
            {scopes.map((scope) => (
              <li key={scope}>
                <label className="flex items-baseline gap-2 text-sm">
                  <input
                    type="checkbox"
                    name="scopes"
                    value={scope}
                    checked={chosen.has(scope)}
                    onChange={(event) => toggle(scope, event.target.checked)}
                    className="translate-y-0.5"
                  />
                  <span>
                    <span className="font-mono text-slate-900">{scope}</span>{" "}
                    <span className="text-slate-600">{SCOPE_DESCRIPTIONS[scope]}</span>
                  </span>
                </label>
              </li>
            ))}
          </ul>
          <FieldError id="token-scopes-error" message={fields.scopes} />
        </fieldset>
        <div className="flex flex-wrap items-start gap-3">
          <button type="submit" disabled={pending} className={primaryButton}>
            {pending ? "Creating…" : "Create token"}
          </button>
          {result && !result.ok ? (
            <ActionMessage
              result={result}
              fieldsShown
              className="min-w-0 flex-1"
              success={() => null}
            />
          ) : null}
        </div>
      </form>
    </div>
  );
}
