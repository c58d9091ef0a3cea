// What the alert-rule commands, queries and the evaluator share: a stored row as a spec, the
// view of a rule the ledger may keep (never the secret, never a Slack URL's path), secrets.
import { randomBytes } from "node:crypto";
import type { SqlClient } from "../../../db/client";
import type { AlertRuleRow } from "../../../db/schema";
import type { AlertKind, AlertRuleSpec } from "../../domain/alerts";
import { destinationHost } from "../../domain/alerts";
import { formatWebhookSecret } from "../../domain/alerts-signature";
import type { CommandResult } from "../../domain/command-result";
import { sha256Hex } from "../../domain/hash";
import type { JsonValue } from "../../domain/json";

/** The columns a spec sets (secret and bookkeeping apart). */
export function specColumns(spec: AlertRuleSpec) {
  return {
    name: spec.name,
    kind: spec.kind as AlertKind,
    agent: spec.kind === "no_live_worker" ? null : (spec.agent ?? null),
    reason: spec.kind === "dead_letter" ? (spec.reason ?? null) : null,
    olderThanMinutes: spec.kind === "approval_waiting" ? spec.olderThanMinutes : null,
    silentForSeconds: spec.kind === "no_live_worker" ? spec.silentForSeconds : null,
    threshold:
      spec.kind === "spend_day_over" || spec.kind === "spend_rate_over" ? spec.threshold : null,
    destination: spec.destination,
    url: spec.url,
    enabled: spec.enabled,
  };
}

type RuleColumns = Pick<
  AlertRuleRow,
  | "name"
  | "kind"
  | "agent"
  | "reason"
  | "olderThanMinutes"
  | "silentForSeconds"
  | "threshold"
  | "destination"
  | "url"
  | "enabled"
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
    silentForSeconds: row.silentForSeconds,
    threshold: row.threshold,
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

export type LockedRule = Pick<
  AlertRuleRow,
  "name" | "kind" | "agent" | "reason" | "destination" | "url" | "secret" | "enabled" | "version"
> & { olderThanMinutes: number | null; silentForSeconds: number | null; threshold: number | null };

/**
 * Locks a rule for a change at the version the admin loaded, or says why it cannot change:
 * no such rule, or it changed since.
 */
export async function lockRuleFor(
  client: SqlClient,
  id: string,
  version: number,
): Promise<{ rule: LockedRule } | { error: CommandResult<never> }> {
  const { rows } = await client.query<LockedRule>(
    `select name, kind, agent, reason, older_than_minutes as "olderThanMinutes",
            silent_for_seconds as "silentForSeconds", threshold, destination, url,
            secret, enabled, version
     from alert_rules where id = $1 for update`,
    [id],
  );
  const rule = rows[0];
  if (!rule) return { error: { ok: false, code: "not_found", message: "no such alert rule" } };
  if (rule.version !== version) {
    return {
      error: {
        ok: false,
        code: "conflict",
        message: `the rule changed since you loaded it (now version ${rule.version})`,
        stale: true,
      },
    };
  }
  return { rule };
}
