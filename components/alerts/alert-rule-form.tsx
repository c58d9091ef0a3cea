"use client";
// Adding or editing an alert rule. The fields a kind does not take are hidden; a webhook
// rule's new secret comes back once and is shown until dismissed. When editing, a blank URL
// keeps the rule's own (the page never holds it).
import { useId, useRef, useState } from "react";
import { createAlertRuleAction } from "../../lib/actions/alerts-create";
import { updateAlertRuleAction } from "../../lib/actions/alerts-update";
import { ALERT_DESTINATIONS, ALERT_KINDS, type AlertKind } from "../../lib/domain/alerts";
import { DEAD_REASONS } from "../../lib/domain/task-states";
import type { AlertRuleDto } from "../../lib/server/queries/list-alert-rules";
import { ActionMessage, LedgerNote, useAdminAction } from "../admin/action-feedback";
import { OneTimeSecret } from "../admin/one-time-secret";
import { FieldError, fieldsOf } from "../ui/action-outcome";
import { inputClass, primaryButton, secondaryButton } from "../ui/control-styles";
import { DESTINATION_LABELS, KIND_HINTS, KIND_LABELS } from "./alert-labels";

type Destination = (typeof ALERT_DESTINATIONS)[number];

export function AlertRuleForm({
  rule,
  onDone,
}: {
  /** Editing this rule; absent: a new one. */
  rule?: AlertRuleDto;
  onDone?: () => void;
}) {
  const id = useId();
  const form = useRef<HTMLFormElement>(null);
  const [kind, setKind] = useState<AlertKind>(rule?.kind ?? "dead_letter");
  const [destination, setDestination] = useState<Destination>(rule?.destination ?? "webhook");
  const [secret, setSecret] = useState<{ name: string; secret: string } | null>(null);
  const create = useAdminAction(createAlertRuleAction);
  const update = useAdminAction(updateAlertRuleAction);
  const { result, pending } = rule ? update : create;
  const raw = fieldsOf(result);
  // An edit's fields come back as rule.<name>.
  const fields = Object.fromEntries(
    Object.entries(raw).map(([k, v]) => [k.replace(/^rule\./, ""), v]),
  );
  const field = (name: string) => `${id}-${name}`;
  const described = (name: string, hint?: boolean) =>
    fields[name] ? `${field(name)}-error` : hint ? `${field(name)}-hint` : undefined;

  return (
    <div className="space-y-4">
      {secret ? (
        <OneTimeSecret
          heading={`Signing secret for “${secret.name}”.`}
          label="The signing secret"
          value={secret.secret}
          testId="new-secret"
          ledgerKind={rule ? "alert_rule.updated" : "alert_rule.created"}
          onDone={() => {
            setSecret(null);
            create.clear();
            update.clear();
          }}
        >
          Give it to the receiver: it checks the{" "}
          <code className="font-mono">webhook-signature</code> header of every delivery with it and
          drops repeated <code className="font-mono">webhook-id</code>s.
        </OneTimeSecret>
      ) : null}
      <form
        ref={form}
        noValidate
        aria-label={rule ? `Edit alert rule ${rule.name}` : "Add an alert rule"}
        className="space-y-4"
        onSubmit={(event) => {
          event.preventDefault();
          const data = new FormData(event.currentTarget);
          const values = {
            name: data.get("name"),
            kind,
            agent: data.get("agent"),
            reason: data.get("reason"),
            olderThanMinutes: data.get("olderThanMinutes"),
            silentForSeconds: data.get("silentForSeconds"),
            threshold: data.get("threshold"),
            destination,
            url: data.get("url"),
            enabled: data.get("enabled") === "on",
          };
          setSecret(null);
          const name = String(values.name ?? "");
          if (rule) {
            update.run({ id: rule.id, version: rule.version, rule: values }, (value) => {
              if (value.secret) setSecret({ name, secret: value.secret });
              else onDone?.();
            });
          } else {
            create.run(values, (value) => {
              if (value.secret) setSecret({ name, secret: value.secret });
              form.current?.reset();
              setKind("dead_letter");
              setDestination("webhook");
            });
          }
        }}
      >
        <div className="grid gap-4 sm:grid-cols-2">
          <div>
            <label htmlFor={field("name")} className="block text-sm font-medium text-slate-800">
              Name
            </label>
            <input
              id={field("name")}
              name="name"
              required
              autoComplete="off"
              defaultValue={rule?.name}
              aria-invalid={fields.name ? true : undefined}
              aria-describedby={described("name")}
              className={inputClass}
            />
            <FieldError id={`${field("name")}-error`} message={fields.name} />
          </div>
          <div>
            <label htmlFor={field("kind")} className="block text-sm font-medium text-slate-800">
              Alert when
            </label>
            <select
              id={field("kind")}
              name="kind"
              value={kind}
              onChange={(event) => setKind(event.target.value as AlertKind)}
              aria-describedby={`${field("kind")}-hint`}
              className={inputClass}
            >
              {ALERT_KINDS.map((k) => (
                <option key={k} value={k}>
                  {KIND_LABELS[k]}
                </option>
              ))}
            </select>
            <p id={`${field("kind")}-hint`} className="mt-1 text-xs text-slate-600">
              {KIND_HINTS[kind]}.
            </p>
          </div>
          {kind === "no_live_worker" ? (
            <WholeNumberField
              id={field("silentForSeconds")}
              name="silentForSeconds"
              label="No worker seen for (seconds)"
              defaultValue={rule?.silentForSeconds ?? 60}
              error={fields.silentForSeconds}
            />
          ) : (
            <div>
              <label htmlFor={field("agent")} className="block text-sm font-medium text-slate-800">
                Agent <span className="font-normal text-slate-600">(optional)</span>
              </label>
              <input
                id={field("agent")}
                name="agent"
                autoComplete="off"
                placeholder="every agent"
                defaultValue={rule?.agent ?? ""}
                aria-invalid={fields.agent ? true : undefined}
                aria-describedby={described("agent")}
                className={inputClass}
              />
              <FieldError id={`${field("agent")}-error`} message={fields.agent} />
            </div>
          )}
          {kind === "dead_letter" ? (
            <div>
              <label htmlFor={field("reason")} className="block text-sm font-medium text-slate-800">
                Reason <span className="font-normal text-slate-600">(optional)</span>
              </label>
              <select
                id={field("reason")}
                name="reason"
                defaultValue={rule?.reason ?? ""}
                aria-invalid={fields.reason ? true : undefined}
                aria-describedby={described("reason")}
                className={inputClass}
              >
                <option value="">any reason</option>
                {DEAD_REASONS.map((r) => (
                  <option key={r} value={r}>
                    {r}
                  </option>
                ))}
              </select>
              <FieldError id={`${field("reason")}-error`} message={fields.reason} />
            </div>
          ) : null}
          {kind === "spend_day_over" || kind === "spend_rate_over" ? (
            <WholeNumberField
              id={field("threshold")}
              name="threshold"
              label={
                kind === "spend_day_over" ? "Spend today over ($)" : "Spend in an hour over ($)"
              }
              defaultValue={rule?.threshold ?? 10}
              error={fields.threshold}
              decimal
            />
          ) : null}
          {kind === "approval_waiting" ? (
            <WholeNumberField
              id={field("olderThanMinutes")}
              name="olderThanMinutes"
              label="Waiting longer than (minutes)"
              defaultValue={rule?.olderThanMinutes ?? 30}
              error={fields.olderThanMinutes}
            />
          ) : null}
        </div>
        <fieldset>
          <legend className="text-sm font-medium text-slate-800">Send to</legend>
          <div className="mt-1 flex flex-wrap gap-4">
            {ALERT_DESTINATIONS.map((d) => (
              <label key={d} className="flex items-center gap-2 text-sm">
                <input
                  type="radio"
                  name="destination"
                  value={d}
                  checked={destination === d}
                  onChange={() => setDestination(d)}
                />
                {DESTINATION_LABELS[d]}
              </label>
            ))}
          </div>
        </fieldset>
        <div>
          <label htmlFor={field("url")} className="block text-sm font-medium text-slate-800">
            URL
          </label>
          <input
            id={field("url")}
            name="url"
            type="url"
            autoComplete="off"
            required={!rule}
            placeholder={
              rule
                ? `blank keeps the current URL (${rule.destinationHost})`
                : destination === "slack"
                  ? "https://hooks.slack.com/services/…"
                  : "https://example.com/webhooks/agent-ledger"
            }
            aria-invalid={fields.url ? true : undefined}
            aria-describedby={described("url", true)}
            className={inputClass}
          />
          <p id={`${field("url")}-hint`} className="mt-1 text-xs text-slate-600">
            http or https. Only the host is shown after saving: an incoming-webhook URL is a
            credential.{" "}
            {destination === "webhook"
              ? "Deliveries are signed; a new webhook rule gets a secret, shown once."
              : "Slack posts cannot be deduplicated: an unknown outcome goes to a reviewer."}
          </p>
          <FieldError id={`${field("url")}-error`} message={fields.url} />
        </div>
        <label className="flex items-center gap-2 text-sm">
          <input type="checkbox" name="enabled" defaultChecked={rule?.enabled ?? true} />
          Enabled
        </label>
        <div className="flex flex-wrap items-start gap-3">
          <button type="submit" disabled={pending} className={primaryButton}>
            {pending ? "Saving…" : rule ? "Save rule" : "Add rule"}
          </button>
          {rule && onDone ? (
            <button type="button" className={secondaryButton} onClick={onDone}>
              Cancel
            </button>
          ) : null}
          <ActionMessage
            result={result}
            fieldsShown
            className="min-w-0 flex-1"
            success={() => (
              <>
                Saved. <LedgerNote kind={rule ? "alert_rule.updated" : "alert_rule.created"} />
              </>
            )}
          />
        </div>
      </form>
    </div>
  );
}

/** A required whole number (minutes, seconds) with its error under it. */
function WholeNumberField({
  id,
  name,
  label,
  defaultValue,
  error,
  decimal = false,
}: {
  id: string;
  name: string;
  label: string;
  defaultValue: number;
  error: string | undefined;
  /** An amount of money rather than a count. */
  decimal?: boolean;
}) {
  return (
    <div>
      <label htmlFor={id} className="block text-sm font-medium text-slate-800">
        {label}
      </label>
      <input
        id={id}
        name={name}
        inputMode={decimal ? "decimal" : "numeric"}
        required
        defaultValue={defaultValue}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        className={inputClass}
      />
      <FieldError id={`${id}-error`} message={error} />
    </div>
  );
}
