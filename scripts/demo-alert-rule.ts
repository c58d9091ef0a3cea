// The demo's alert rule follows the demo webhook sink. `npm start` moves the sink to a free port
// when 4343 is taken (another checkout's npm start, say); a rule left at 4343 would send every
// alert nowhere and dead-letter it. The rule is changed through the admins' own command, so the
// move is an alert_rule.updated entry in the ledger like any other change, by the launcher.
import type pg from "pg";
import { operator } from "../lib/domain/access";
import { alertRuleChangeSchema } from "../lib/domain/alerts";
import { DEMO_WEBHOOK_SECRET } from "../lib/env";
import { updateAlertRule } from "../lib/server/commands/update-alert-rule";

export const LAUNCHER_ACTOR = "system:launcher";

/**
 * Whether a rule's URL is the demo sink's (on loopback, at any port) rather than a place an
 * admin pointed it to since: only those follow the sink.
 */
function atDemoSink(url: string): boolean {
  if (!URL.canParse(url)) return false;
  const { protocol, hostname } = new URL(url);
  return protocol === "http:" && (hostname === "127.0.0.1" || hostname === "localhost");
}

/**
 * Points every demo rule (a webhook signed with the demo sink's secret, still aimed at a demo
 * sink) at the sink listening at `sinkUrl` now, keeping the rule's path. Returns the rules moved
 * with their URL before and after; a rule already there is left alone (no entry).
 */
export async function pointDemoRulesAt(
  pool: pg.Pool,
  sinkUrl: string,
): Promise<{ id: string; from: string; to: string }[]> {
  const sink = new URL(sinkUrl);
  const { rows } = await pool.query<{
    id: string;
    version: number;
    name: string;
    kind: string;
    agent: string | null;
    reason: string | null;
    older_than_minutes: number | null;
    silent_for_seconds: number | null;
    url: string;
    enabled: boolean;
  }>(
    `select id, version, name, kind, agent, reason, older_than_minutes, silent_for_seconds, url, enabled
       from alert_rules
      where destination = 'webhook' and secret = $1
      order by created_at`,
    [DEMO_WEBHOOK_SECRET],
  );
  const moved: { id: string; from: string; to: string }[] = [];
  for (const row of rows) {
    if (!atDemoSink(row.url)) continue;
    const target = new URL(row.url);
    target.protocol = sink.protocol;
    target.hostname = sink.hostname;
    target.port = sink.port;
    const to = target.toString();
    if (to === row.url) continue;
    const change = alertRuleChangeSchema.parse({
      name: row.name,
      kind: row.kind,
      destination: "webhook",
      url: to,
      enabled: row.enabled,
      agent: row.agent ?? undefined,
      reason: row.reason ?? undefined,
      olderThanMinutes: row.older_than_minutes ?? undefined,
      silentForSeconds: row.silent_for_seconds ?? undefined,
    });
    const updated = await updateAlertRule(pool, operator(LAUNCHER_ACTOR), {
      id: row.id,
      version: row.version,
      rule: change,
    });
    if (!updated.ok) throw new Error(`the demo alert rule "${row.name}": ${updated.message}`);
    moved.push({ id: row.id, from: row.url, to });
  }
  return moved;
}
