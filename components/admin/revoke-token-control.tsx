"use client";
// Revoking a token: asks first, then says what happened. Requests with it fail from now on.
import { revokeTokenAction } from "../../lib/actions/tokens";
import { ActionMessage, LedgerNote, useAdminAction } from "./action-feedback";
import { ConfirmButton } from "./confirm-button";

/** Stays mounted once the token is revoked, so the outcome is still there to read. */
export function RevokeTokenControl({
  id,
  name,
  revoked,
}: {
  id: string;
  name: string;
  revoked: boolean;
}) {
  const { result, pending, run } = useAdminAction(revokeTokenAction);
  return (
    <div className="flex flex-col items-start gap-1">
      {revoked ? null : (
        <ConfirmButton
          label="Revoke"
          question={`Revoke “${name}”? Requests with it fail from now on.`}
          confirmLabel="Yes, revoke"
          pending={pending}
          onConfirm={() => run({ tokenId: id })}
        />
      )}
      <ActionMessage
        result={result}
        className="max-w-xs text-xs"
        success={() => (
          <>
            Revoked. <LedgerNote kind="token.revoked" />
          </>
        )}
      />
    </div>
  );
}
