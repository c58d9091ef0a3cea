import type { Scope } from "../../lib/domain/access";

/** What each scope lets a token (or a role) do, in the words of the screen it unlocks. */
export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  "tasks:read": "read tasks, their steps and effects",
  "ledger:read": "read the ledger",
  "payloads:read": "see tool arguments and results",
  "tasks:enqueue": "enqueue tasks",
  "deadLetters:review": "replay or reject dead letters",
  "approvals:decide": "approve or reject gated effects",
  "outcomes:resolve": "resolve unknown outcomes",
  "tasks:cancel": "cancel tasks",
  "policies:write": "change retry policies",
  "alerts:write": "add, change and delete alert rules",
  "users:manage": "manage users",
  "tokens:manage": "manage API tokens",
  "export:run": "export",
  "metrics:read": "read metrics",
  "schedules:write": "add, pause, resume and delete schedules",
  "events:send": "send events to waiting tasks",
};
