"use client";
// Admins set a tool's rate limit in place of its code's (or where the code sets none), or clear
// theirs so the code's applies again. The form carries the version it was loaded at, so two
// admins editing at once cannot overwrite each other unknowingly.
import { useId } from "react";
import { setToolRateLimitAction } from "../../lib/actions/policies";
import { describeRateLimit } from "../../lib/domain/rate-limit";
import type { ToolLimitDto } from "../../lib/server/queries/list-tool-limits";
import { FormFoot, fieldsOf, SettingDialog, useDialogReview } from "../review/review-kit";
import { TextField } from "../ui/field";

const FIELDS = ["limit", "periodSeconds"] as const;

function ToolLimitForm({ tool, close }: { tool: ToolLimitDto; close: () => void }) {
  const { feedback, pending, run } = useDialogReview(close);
  const id = useId();
  const errors = fieldsOf(feedback);
  const version = tool.admin?.version ?? null;
  const submit = (limit: string, periodSeconds: string) =>
    run(
      setToolRateLimitAction,
      { tool: tool.tool, version: version === null ? "" : String(version), limit, periodSeconds },
      (v) =>
        v.version === null
          ? `Cleared the admin's rate limit of ${tool.tool}.`
          : `Saved the rate limit of ${tool.tool} (version ${v.version}). Attempts claimed from now on are held to it.`,
    );
  const codeText = tool.code ? describeRateLimit(tool.code) : "none";
  return (
    <form
      className="space-y-4"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        const data = new FormData(event.currentTarget);
        submit(String(data.get("limit") ?? ""), String(data.get("periodSeconds") ?? ""));
      }}
    >
      <p className="text-sm text-slate-700">
        At most this many calls reach the provider in any period, across every worker
        {tool.code?.keyed ? ", per key as the code buckets them" : ""}. A call over it waits for a
        slot; no attempt is spent. The code declares: {codeText}. Leave both fields empty to clear
        the admin&apos;s limit. The change is recorded in the ledger with before, after and you.
      </p>
      <div className="grid gap-4 sm:grid-cols-2">
        {FIELDS.map((name) => {
          const inputId = `${id}-${name}`;
          const error = errors[name];
          const value =
            name === "limit"
              ? tool.admin?.limit
              : tool.admin
                ? tool.admin.periodMs / 1_000
                : undefined;
          return (
            <TextField
              key={name}
              id={inputId}
              name={name}
              label={name === "limit" ? "Calls" : "Per period"}
              hint={name === "limit" ? "(count)" : "(seconds)"}
              inputMode={name === "limit" ? "numeric" : "decimal"}
              defaultValue={value === undefined ? "" : String(value)}
              placeholder={
                tool.code
                  ? `${name === "limit" ? tool.code.limit : tool.code.periodMs / 1_000} (agent code)`
                  : "no limit"
              }
              error={error}
            />
          );
        })}
      </div>
      <FormFoot feedback={feedback} shownFields={FIELDS} pending={pending} close={close}>
        {pending ? "Saving…" : "Save rate limit"}
      </FormFoot>
    </form>
  );
}

export function EditToolLimit({ tool }: { tool: ToolLimitDto }) {
  return (
    <SettingDialog
      isSet={tool.admin !== null}
      subject={tool.tool}
      noun="limit"
      title={`Rate limit: ${tool.tool}`}
      testId={`edit-tool-limit-${tool.tool}`}
    >
      {(close) => <ToolLimitForm tool={tool} close={close} />}
    </SettingDialog>
  );
}
