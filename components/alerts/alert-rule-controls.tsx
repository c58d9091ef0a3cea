"use client";
// Per-rule controls for admins: edit (a link to the edit form), enable or disable, delete
// (asks first). Each acts on the version the page loaded; a rule changed meanwhile is refused.
// A deleted rule's row leaves the table when the page re-reads the rules.
import Link from "next/link";
import { useState } from "react";
import { deleteAlertRuleAction } from "../../lib/actions/alerts-delete";
import { updateAlertRuleAction } from "../../lib/actions/alerts-update";
import type { AlertRuleDto } from "../../lib/server/queries/list-alert-rules";
import { ActionMessage, LedgerNote, useAdminAction } from "../admin/action-feedback";
import { ConfirmButton } from "../admin/confirm-button";
import { secondaryButton } from "../ui/control-styles";

export function AlertRuleControls({ rule }: { rule: AlertRuleDto }) {
  const toggle = useAdminAction(updateAlertRuleAction);
  const remove = useAdminAction(deleteAlertRuleAction);
  const next = !rule.enabled;
  // What the last press asked for: once the page re-reads the rule, `next` has flipped.
  const [asked, setAsked] = useState<boolean>(next);
  return (
    <div className="flex flex-col items-start gap-1.5">
      <div className="flex flex-wrap gap-2">
        <Link
          href={`/settings/alerts?edit=${encodeURIComponent(rule.id)}#edit-rule`}
          className={`${secondaryButton} px-2 py-1 text-xs`}
          aria-label={`Edit ${rule.name}`}
        >
          Edit
        </Link>
        <button
          type="button"
          disabled={toggle.pending}
          className={`${secondaryButton} px-2 py-1 text-xs`}
          aria-label={`${next ? "Enable" : "Disable"} ${rule.name}`}
          onClick={() => {
            setAsked(next);
            toggle.run({
              id: rule.id,
              version: rule.version,
              rule: {
                name: rule.name,
                kind: rule.kind,
                agent: rule.agent ?? "",
                reason: rule.reason ?? "",
                olderThanMinutes: rule.olderThanMinutes ?? "",
                silentForSeconds: rule.silentForSeconds ?? "",
                threshold: rule.threshold ?? "",
                destination: rule.destination,
                enabled: next,
              },
            });
          }}
        >
          {next ? "Enable" : "Disable"}
        </button>
        <ConfirmButton
          label="Delete"
          question={`Delete “${rule.name}”? Deliveries already queued send nothing.`}
          confirmLabel="Yes, delete"
          pending={remove.pending}
          onConfirm={() => remove.run({ id: rule.id, version: rule.version })}
        />
      </div>
      <ActionMessage
        result={toggle.result}
        className="max-w-xs text-xs"
        success={() => (
          <>
            {asked ? "Enabled" : "Disabled"}.{" "}
            <LedgerNote kind={asked ? "alert_rule.enabled" : "alert_rule.disabled"} />
          </>
        )}
      />
      <ActionMessage
        result={remove.result}
        className="max-w-xs text-xs"
        success={() => (
          <>
            Deleted. <LedgerNote kind="alert_rule.deleted" />
          </>
        )}
      />
    </div>
  );
}
