// Changes an alert rule at the version the admin loaded: its filters, destination or enabled
// flag. A rule that becomes a webhook gets a secret (returned once); one that stays a webhook
// keeps its secret. The `system` stream records before, after and who.
import type pg from "pg";
import { withTransaction } from "../../../db/client";
import type { Principal } from "../../domain/access";
import { type AlertRuleChange, alertRuleSchema } from "../../domain/alerts";
import { type CommandResult, refuseWithout } from "../../domain/command-result";
import { describeIssues } from "../../domain/zod-issues";
import { isRuleId, ledgerView, lockRuleFor, newWebhookSecret, specColumns } from "../alerts/rules";
import { appendLedger, SYSTEM_STREAM } from "../ledger/append-ledger";

export type UpdateAlertRuleInput = {
  id: string;
  /** The version the admin saw. */
  version: number;
  /** Without a URL the rule keeps its own (the dashboard never shows it back). */
  rule: AlertRuleChange;
};

export type UpdatedAlertRule = { id: string; version: number; secret: string | null };

export async function updateAlertRule(
  pool: pg.Pool,
  principal: Principal,
  input: UpdateAlertRuleInput,
): Promise<CommandResult<UpdatedAlertRule>> {
  const refused = refuseWithout(principal, "alerts:write", "change alert rules");
  if (refused) return refused;
  if (!isRuleId(input.id)) return { ok: false, code: "not_found", message: "no such alert rule" };
  return withTransaction(pool, async (client) => {
    const locked = await lockRuleFor(client, input.id, input.version);
    if ("error" in locked) return locked.error;
    const current = locked.rule;
    const parsed = alertRuleSchema.safeParse({ ...input.rule, url: input.rule.url ?? current.url });
    if (!parsed.success) {
      return {
        ok: false as const,
        code: "invalid" as const,
        message: describeIssues(parsed.error),
      };
    }
    const after = specColumns(parsed.data);
    const fresh = after.destination === "webhook" && current.destination !== "webhook";
    const secret =
      after.destination === "webhook" ? (fresh ? newWebhookSecret() : current.secret) : null;
    const updated = await client.query<{ version: number }>(
      `update alert_rules set name = $3, kind = $4, agent = $5, reason = $6, older_than_minutes = $7,
         destination = $8, url = $9, secret = $10, enabled = $11, silent_for_seconds = $12, threshold = $13, version = version + 1, updated_at = now()
       where id = $1 and version = $2
       returning version`,
      [
        input.id,
        input.version,
        after.name,
        after.kind,
        after.agent,
        after.reason,
        after.olderThanMinutes,
        after.destination,
        after.url,
        secret,
        after.enabled,
        after.silentForSeconds,
        after.threshold,
      ],
    );
    const version = updated.rows[0]?.version;
    if (updated.rowCount !== 1 || version === undefined) {
      return {
        ok: false as const,
        code: "conflict" as const,
        message: "the rule changed meanwhile",
      };
    }
    const before = ledgerView(input.id, current);
    const afterView = ledgerView(input.id, { ...after, secret });
    await appendLedger(client, SYSTEM_STREAM, {
      kind: changeKind(before, afterView),
      actor: principal.actor,
      data: { before, after: afterView },
    });
    return {
      ok: true as const,
      value: { id: input.id, version, secret: fresh ? secret : null },
    };
  });
}

/** Enabling or disabling alone is named so, so the ledger reads as what the admin did. */
function changeKind(before: unknown, after: unknown): string {
  const b = before as Record<string, unknown>;
  const a = after as Record<string, unknown>;
  const others = Object.keys(a).filter((k) => k !== "enabled" && a[k] !== b[k]);
  if (others.length === 0 && a.enabled !== b.enabled) {
    return a.enabled ? "alert_rule.enabled" : "alert_rule.disabled";
  }
  return "alert_rule.updated";
}
