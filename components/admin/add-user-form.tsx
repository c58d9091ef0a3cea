"use client";
// Adding a person: email, optional name, role and an initial password they can sign in with.
// Messages come from the action's zod schema, next to the field they are about.
import { useRef } from "react";
import { createUserAction } from "../../lib/actions/users";
import { fieldsOf } from "../ui/action-outcome";
import { inputClass, primaryButton } from "../ui/control-styles";
import { Field } from "../ui/field";
import { ActionMessage, LedgerNote, useAdminAction } from "./action-feedback";

export type RoleOption = { value: string; description: string };

export function AddUserForm({ roles }: { roles: RoleOption[] }) {
  const form = useRef<HTMLFormElement>(null);
  const { result, pending, run } = useAdminAction(createUserAction);
  const fields = fieldsOf(result);

  return (
    <form
      ref={form}
      noValidate
      aria-label="Add a user"
      className="space-y-4"
      onSubmit={(event) => {
        event.preventDefault();
        run(new FormData(event.currentTarget), () => form.current?.reset());
      }}
    >
      <div className="grid gap-4 sm:grid-cols-2">
        <Field id="add-user-email" label="Email" error={fields.email}>
          {(control) => (
            <input
              {...control}
              name="email"
              type="email"
              autoComplete="off"
              required
              className={inputClass}
            />
          )}
        </Field>
        <Field id="add-user-name" label="Name" hint="(optional)" error={fields.name}>
          {(control) => (
            <input {...control} name="name" autoComplete="off" className={inputClass} />
          )}
        </Field>
        <Field
          id="add-user-role"
          label="Role"
          error={fields.role}
          description={
            <ul className="space-y-0.5">
              {roles.map((r) => (
                <li key={r.value}>
                  <span className="font-medium text-slate-800">{r.value}</span>: {r.description}
                </li>
              ))}
            </ul>
          }
        >
          {(control) => (
            <select {...control} name="role" defaultValue="reviewer" className={inputClass}>
              {roles.map((r) => (
                <option key={r.value} value={r.value}>
                  {r.value}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field
          id="add-user-password"
          label="Initial password"
          error={fields.password}
          description="At least 12 characters. Give it to them over a channel you trust."
        >
          {(control) => (
            <input
              {...control}
              name="password"
              type="password"
              autoComplete="new-password"
              required
              className={inputClass}
            />
          )}
        </Field>
      </div>
      <div className="flex flex-wrap items-start gap-3">
        <button type="submit" disabled={pending} className={primaryButton}>
          {pending ? "Adding…" : "Add user"}
        </button>
        <ActionMessage
          result={result}
          fieldsShown
          className="min-w-0 flex-1"
          success={(user) => (
            <>
              Added {user.email} as {user.role}. <LedgerNote kind="user.created" />
            </>
          )}
        />
      </div>
    </form>
  );
}
