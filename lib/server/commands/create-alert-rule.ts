// Adds an alert rule (admins, dashboard or CLI). A webhook rule gets a fresh `whsec_` secret,
// returned here once; the `system` stream records the rule and who, without the secret.
import type pg from "pg";
import { type SqlClient, withTransaction } from "../../../db/client";
import type { Principal } from "../../domain/access";
import { type AlertRuleInput, alertRuleSchema } from "../../domain/alerts";
import { isWebhookSecret } from "../../domain/alerts-signature";
import { type CommandResult, refuseWithout } from "../../domain/command-result";
import { describeIssues } from "../../domain/zod-issues";
import { ledgerView, newWebhookSecret, specColumns } from "../alerts/rules";
import { appendLedger, SYSTEM_STREAM } from "../ledger/append-ledger";

export type CreatedAlertRule = {
  id: string;
  version: number;
  /** The signing secret, shown this once (webhook destinations only). */
  secret: string | null;
};

export async function createAlertRule(
  pool: pg.Pool,
  principal: Principal,
  input: AlertRuleInput,
  /** A known secret instead of a generated one: for the demo seed, whose sink must know it. */
  opts: { secret?: string } = {},
): Promise<CommandResult<CreatedAlertRule>> {
  const refused = refuseWithout(principal, "alerts:write", "add alert rules");
  if (refused) return refused;
  return withTransaction(pool, (client) => insertAlertRule(client, input, principal.actor, opts));
}

/**
 * The same inside the caller's transaction, unauthorized: for the demo seed, which adds its
 * rule with its other data as the system itself. Everyone else goes through createAlertRule.
 */
export async function insertAlertRule(
  client: SqlClient,
  input: AlertRuleInput,
  actor: string,
  opts: { secret?: string } = {},
): Promise<CommandResult<CreatedAlertRule>> {
  const parsed = alertRuleSchema.safeParse(input);
  if (!parsed.success) return { ok: false, code: "invalid", message: describeIssues(parsed.error) };
  if (opts.secret !== undefined && !isWebhookSecret(opts.secret)) {
    return { ok: false, code: "invalid", message: "the secret must be whsec_ and base64" };
  }
  const columns = specColumns(parsed.data);
  const secret = columns.destination === "webhook" ? (opts.secret ?? newWebhookSecret()) : null;
  const { rows } = await client.query<{ id: string; version: number }>(
    `insert into alert_rules (name, kind, agent, reason, older_than_minutes, destination, url, secret, enabled, created_by, silent_for_seconds, threshold)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
     returning id, version`,
    [
      columns.name,
      columns.kind,
      columns.agent,
      columns.reason,
      columns.olderThanMinutes,
      columns.destination,
      columns.url,
      secret,
      columns.enabled,
      actor,
      columns.silentForSeconds,
      columns.threshold,
    ],
  );
  const row = rows[0];
  if (!row) throw new Error("insert into alert_rules returned no row");
  await appendLedger(client, SYSTEM_STREAM, {
    kind: "alert_rule.created",
    actor,
    data: { before: null, after: ledgerView(row.id, { ...columns, secret }) },
  });
  return { ok: true as const, value: { id: row.id, version: row.version, secret } };
}
