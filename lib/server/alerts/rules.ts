// What the alert-rule commands, queries and the evaluator share: a stored row as a spec, the
// view of a rule the ledger may keep (never the secret, never a Slack URL's path), secrets.
import { randomBytes } from "node:crypto";
import type { AlertRuleRow } from "../../../db/schema";
import type { AlertKind, AlertRuleSpec } from "../../domain/alerts";
import { destinationHost } from "../../domain/alerts";
import { formatWebhookSecret } from "../../domain/alerts-signature";
import { sha256Hex } from "../../domain/hash";
import type { JsonValue } from "../../domain/json";

/** The columns a spec sets (secret and bookkeeping apart). */
export function specColumns(spec: AlertRuleSpec) {
  return {
    name: spec.name,
    kind: spec.kind as AlertKind,
    agent: spec.agent ?? null,
    reason: spec.kind === "dead_letter" ? (spec.reason ?? null) : null,
    olderThanMinutes: spec.kind === "approval_waiting" ? spec.olderThanMinutes : null,
    destination: spec.destination,
    url: spec.url,
    enabled: spec.enabled,
  };
}

type RuleColumns = Pick<
  AlertRuleRow,
  "name" | "kind" | "agent" | "reason" | "olderThanMinutes" | "destination" | "url" | "enabled"
>;

/**
 * A rule as the ledger records it: the URL by host and digest (an incoming-webhook URL is
 * itself a credential), the secret only as "set".
 */
export function ledgerView(id: string, row: RuleColumns & { secret: string | null }): JsonValue {
  return {
    id,
    name: row.name,
    kind: row.kind,
    agent: row.agent,
    reason: row.reason,
    olderThanMinutes: row.olderThanMinutes,
    destination: row.destination,
    urlHost: destinationHost(row.url),
    urlSha256: sha256Hex(row.url),
    secret: row.secret === null ? null : "[redacted]",
    enabled: row.enabled,
  };
}

export function newWebhookSecret(): string {
  return formatWebhookSecret(randomBytes(32));
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Rule ids are uuids: anything else names no rule (and must not reach a uuid column). */
export function isRuleId(id: string): boolean {
  return UUID.test(id);
}
