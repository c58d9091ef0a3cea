"use client";
// "Send event" for a waiting task: the payload as JSON, prefilled with the wait's match; the
// action (lib/actions/send-event.ts) authorizes itself and records who sent it.
import { useId, useState } from "react";
import { sendEventAction } from "../../lib/actions/send-event";
import { ActionMessage, LedgerNote, useAdminAction } from "../admin/action-feedback";
import { inputClass, primaryButton } from "../ui/control-styles";

export function SendEventForm({ name, match }: { name: string; match: object }) {
  const id = useId();
  const [payload, setPayload] = useState(JSON.stringify(match, null, 2));
  const { result, pending, run } = useAdminAction(sendEventAction);
  return (
    <form
      className="mt-4 space-y-2"
      onSubmit={(e) => {
        e.preventDefault();
        run({ name, payload });
      }}
    >
      <label htmlFor={id} className="block text-sm font-medium text-slate-800">
        Payload of <code className="font-mono">{name}</code> (a JSON object that contains the match)
      </label>
      <textarea
        id={id}
        name="payload"
        rows={4}
        className={`${inputClass} font-mono`}
        value={payload}
        onChange={(e) => setPayload(e.target.value)}
      />
      <button type="submit" className={primaryButton} disabled={pending}>
        {pending ? "Sending…" : "Send event"}
      </button>
      <ActionMessage
        result={result}
        success={(sent) => (
          <>
            Sent to {sent.deliveredTo.length} waiting task(s). <LedgerNote kind="event.received" />
          </>
        )}
      />
    </form>
  );
}
