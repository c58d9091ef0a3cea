"use client";
// Per-person controls on the users table: change the role, disable or enable, lift a sign-in
// lock. Each says what happened beside it. Your own row has neither: another admin changes your account.
import { useId, useState } from "react";
import { unlockSignInAction } from "../../lib/actions/unlock-sign-in";
import { setUserDisabledAction, setUserRoleAction } from "../../lib/actions/users";
import { secondaryButton } from "../ui/control-styles";
import { ActionMessage, LedgerNote, useAdminAction } from "./action-feedback";
import { ConfirmButton } from "./confirm-button";

type Person = { id: string; email: string; role: string; disabled: boolean };

export function UserRoleControl({ user, roles }: { user: Person; roles: readonly string[] }) {
  const id = useId();
  const [role, setRole] = useState(user.role);
  const { result, pending, run } = useAdminAction(setUserRoleAction);
  return (
    <div className="space-y-1">
      <form
        className="flex items-center gap-2"
        onSubmit={(event) => {
          event.preventDefault();
          run({ userId: user.id, role });
        }}
      >
        <label htmlFor={`${id}-role`} className="sr-only">
          Role of {user.email}
        </label>
        <select
          id={`${id}-role`}
          value={role}
          onChange={(event) => setRole(event.target.value)}
          className="w-32 rounded-md border border-slate-300 bg-white py-1 pr-7 pl-2 text-sm shadow-xs focus:border-sky-500 focus:ring-2 focus:ring-sky-200 focus:outline-none"
        >
          {roles.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
        <button
          type="submit"
          disabled={pending || role === user.role}
          className={`${secondaryButton} py-1`}
        >
          {pending ? "Saving…" : "Change"}
          <span className="sr-only"> role of {user.email}</span>
        </button>
      </form>
      <ActionMessage
        result={result}
        className="max-w-xs text-xs"
        success={(after) => (
          <>
            Now {after.role}. <LedgerNote kind="user.role_changed" />
          </>
        )}
      />
    </div>
  );
}

export function UserStatusControl({ user }: { user: Person }) {
  const { result, pending, run } = useAdminAction(setUserDisabledAction);
  return (
    <div className="space-y-1">
      {user.disabled ? (
        <ConfirmButton
          label="Enable"
          question={`Let ${user.email} sign in again?`}
          confirmLabel="Yes, enable"
          danger={false}
          pending={pending}
          onConfirm={() => run({ userId: user.id, disabled: false })}
        />
      ) : (
        <ConfirmButton
          label="Disable"
          question={`Disable ${user.email}? Their sessions end at once.`}
          confirmLabel="Yes, disable"
          pending={pending}
          onConfirm={() => run({ userId: user.id, disabled: true })}
        />
      )}
      <ActionMessage
        result={result}
        className="max-w-xs text-xs"
        success={(after) => (
          <>
            {after.disabled ? "Disabled; their sessions have ended." : "Enabled."}{" "}
            <LedgerNote kind={after.disabled ? "user.disabled" : "user.enabled"} />
          </>
        )}
      />
    </div>
  );
}

/** For an owner slowed down by someone else's wrong passwords: their failures stop counting. */
export function UnlockSignInControl({ user }: { user: Person }) {
  const { result, pending, run } = useAdminAction(unlockSignInAction);
  return (
    <div className="space-y-1">
      <ConfirmButton
        label="Unlock sign-in"
        question={`Let ${user.email} try their password again now, from every address?`}
        confirmLabel="Yes, unlock"
        danger={false}
        pending={pending}
        onConfirm={() => run({ email: user.email })}
      />
      <ActionMessage
        result={result}
        className="max-w-xs text-xs"
        success={() => (
          <>
            Failed sign-ins no longer count. <LedgerNote kind="sign_in.unlocked" />
          </>
        )}
      />
    </div>
  );
}
