// The alerts screen and `agent-ledger alerts list`: each rule's filters, its destination by
// host only (an incoming-webhook URL is a credential), whether it is on, and how its latest
// delivery went. Secrets never leave the database through here.
import { asc, desc, eq, sql } from "drizzle-orm";
import type { Db } from "../../../db/client";
import { alertRules, tasks } from "../../../db/schema";
import { requireScope, type Viewer } from "../../domain/access";
import { ALERT_DELIVERY_AGENT, type AlertKind, destinationHost } from "../../domain/alerts";
import type { TaskStatus } from "../../domain/task-states";

/** Two reads: the rules, and the newest delivery per rule. */
type RulesReader = Pick<Db, "select" | "selectDistinctOn">;

export type AlertRuleDto = {
  id: string;
  name: string;
  kind: AlertKind;
  agent: string | null;
  reason: string | null;
  olderThanMinutes: number | null;
  silentForSeconds: number | null;
  /** Spend kinds: the money the spend must pass. */
  threshold: number | null;
  destination: "slack" | "webhook";
  destinationHost: string;
  enabled: boolean;
  version: number;
  createdBy: string;
  /** ISO 8601, UTC. */
  createdAt: string;
  lastDelivery: {
    taskId: string;
    status: TaskStatus;
    deadReason: string | null;
    at: string;
  } | null;
};

/** Everyone who can read tasks sees the rules; changing them needs alerts:write. */
export async function listAlertRules(
  db: RulesReader,
  viewer: Viewer | null,
): Promise<AlertRuleDto[]> {
  requireScope(viewer, "tasks:read");
  return readAlertRules(db);
}

/** Unchecked: for the CLI, whose operator already holds the database credentials. */
export async function readAlertRules(db: RulesReader): Promise<AlertRuleDto[]> {
  const rules = await db
    .select({
      id: alertRules.id,
      name: alertRules.name,
      kind: alertRules.kind,
      agent: alertRules.agent,
      reason: alertRules.reason,
      olderThanMinutes: alertRules.olderThanMinutes,
      silentForSeconds: alertRules.silentForSeconds,
      threshold: alertRules.threshold,
      destination: alertRules.destination,
      url: alertRules.url,
      enabled: alertRules.enabled,
      version: alertRules.version,
      createdBy: alertRules.createdBy,
      createdAt: alertRules.createdAt,
    })
    .from(alertRules)
    .orderBy(asc(alertRules.createdAt), asc(alertRules.id));
  const ruleId = sql<string>`${tasks.input}->>'ruleId'`;
  // The newest delivery task per rule (one index scan over a small agent's tasks).
  const latest = await db
    .selectDistinctOn([ruleId], {
      ruleId,
      taskId: tasks.id,
      status: tasks.status,
      deadReason: tasks.deadReason,
      at: tasks.statusChangedAt,
    })
    .from(tasks)
    .where(eq(tasks.agent, ALERT_DELIVERY_AGENT))
    .orderBy(ruleId, desc(tasks.createdAt));
  const byRule = new Map(latest.map((l) => [l.ruleId, l]));
  return rules.map((r) => {
    const last = byRule.get(r.id);
    return {
      id: r.id,
      name: r.name,
      kind: r.kind as AlertKind,
      agent: r.agent,
      reason: r.reason,
      olderThanMinutes: r.olderThanMinutes,
      silentForSeconds: r.silentForSeconds,
      threshold: r.threshold,
      destination: r.destination === "slack" ? "slack" : "webhook",
      destinationHost: destinationHost(r.url),
      enabled: r.enabled,
      version: r.version,
      createdBy: r.createdBy,
      createdAt: r.createdAt.toISOString(),
      lastDelivery: last
        ? {
            taskId: last.taskId,
            status: last.status,
            deadReason: last.deadReason,
            at: last.at.toISOString(),
          }
        : null,
    };
  });
}
