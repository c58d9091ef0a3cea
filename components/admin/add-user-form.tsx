"use client";
// Adding a person: email, optional name, role and an initial password they can sign in with.
// Messages come from the action's zod schema, next to the field they are about.
import { useRef } from "react";
import { createUserAction } from "../../lib/actions/users";
import { FieldError, fieldsOf } from "../ui/action-outcome";
import { inputClass, primaryButton } from "../ui/control-styles";
import { ActionMessage, LedgerNote, useAdminAction } from "./action-feedback";

export type RoleOption = { value: string; description: string };

export function AddUserForm({ roles }: { roles: RoleOption[] }) {
  const form = useRef<HTMLFormElement>(null);
  const { result, pending, run } = useAdminAction(createUserAction);
  const fields = fieldsOf(result);

  const describedBy = (name: string, hint?: string) =>
    [fields[name] ? `add-user-${name}-error` : null, hint].filter(Boolean).join(" ") || undefined;

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
        <div>
          <label htmlFor="add-user-email" className="block text-sm font-medium text-slate-800">
            Email
          </label>
          <input
            id="add-user-email"
            name="email"
            type="email"
            autoComplete="off"
            required
            aria-invalid={fields.email ? true : undefined}
            aria-describedby={describedBy("email")}
            className={inputClass}
          />
          <FieldError id="add-user-email-error" message={fields.email} />
        </div>
        <div>
          <label htmlFor="add-user-name" className="block text-sm font-medium text-slate-800">
            Name <span className="font-normal text-slate-600">(optional)</span>
          </label>
          <input
            id="add-user-name"
            name="name"
            autoComplete="off"
            aria-invalid={fields.name ? true : undefined}
            aria-describedby={describedBy("name")}
            className={inputClass}
          />
          <FieldError id="add-user-name-error" message={fields.name} />
        </div>
        <div>
          <label htmlFor="add-user-role" className="block text-sm font-medium text-slate-800">
            Role
          </label>
          <select
            id="add-user-role"
            name="role"
            defaultValue="reviewer"
            aria-invalid={fields.role ? true : undefined}
            aria-describedby={describedBy("role", "add-user-role-hint")}
            className={inputClass}
          >
            {roles.map((r) => (
              <option key={r.value} value={r.value}>
                {r.value}
              </option>
            ))}
          </select>
          <ul id="add-user-role-hint" className="mt-1 space-y-0.5 text-xs text-slate-600">
            {roles.map((r) => (
              <li key={r.value}>
                <span className="font-medium text-slate-800">{r.value}</span>: {r.description}
              </li>
            ))}
          </ul>
          <FieldError id="add-user-role-error" message={fields.role} />
        </div>
        <div>
          <label htmlFor="add-user-password" className="block text-sm font-medium text-slate-800">
            Initial password
          </label>
          <input
            id="add-user-password"
            name="password"
            type="password"
            autoComplete="new-password"
            required
            aria-invalid={fields.password ? true : undefined}
            aria-describedby={describedBy("password", "add-user-password-hint")}
            className={inputClass}
          />
          <p id="add-user-password-hint" className="mt-1 text-xs text-slate-600">
            At least 12 characters. Give it to them over a channel you trust.
          </p>
          <FieldError id="add-user-password-error" message={fields.password} />
        </div>
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
