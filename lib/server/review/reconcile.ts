// "Check with the provider", the reads both sides share: which of an agent's tools can be
// reconciled (the catalog the workers publish, since the web app never loads tool code) and
// the latest check of each of a task's effects, for the command and the task screen.
import { z } from "zod";
import type { SqlClient } from "../../../db/client";
import type { JsonValue } from "../../domain/json";
import {
  type ReconcileAnswer,
  type ReconcileCheckStatus,
  reconcileAnswerSchema,
} from "../../domain/reconcile-checks";

const catalogToolsSchema = z.array(
  z.looseObject({ name: z.string(), reconcile: z.boolean().optional() }),
);

/** The agent's tools that have a reconcile, and whether any worker published the agent. */
export async function reconcilableTools(
  client: SqlClient,
  agent: string,
): Promise<{ known: boolean; tools: Set<string> }> {
  const { rows } = await client.query<{ tools: unknown }>(
    "select tools from agent_catalog where name = $1",
    [agent],
  );
  const parsed = rows[0] ? catalogToolsSchema.safeParse(rows[0].tools) : null;
  if (!parsed?.success) return { known: false, tools: new Set() };
  return {
    known: true,
    tools: new Set(parsed.data.filter((t) => t.reconcile === true).map((t) => t.name)),
  };
}

export type ReconcileCheck = {
  id: number;
  effectKey: string;
  status: ReconcileCheckStatus;
  requestedBy: string;
  /** ISO 8601. */
  requestedAt: string;
  answeredBy: string | null;
  answeredAt: string | null;
  /** Null while pending. */
  answer: ReconcileAnswer | null;
};

/** The latest check of each of the task's effects, by effect key. */
export async function latestChecks(
  client: SqlClient,
  taskId: string,
): Promise<Map<string, ReconcileCheck>> {
  const { rows } = await client.query<{
    id: string;
    effect_key: string;
    status: ReconcileCheckStatus;
    requested_by: string;
    requested_at: Date;
    answered_by: string | null;
    answered_at: Date | null;
    answer: JsonValue | null;
  }>(
    `select distinct on (effect_key) id, effect_key, status, requested_by, requested_at,
            answered_by, answered_at, answer
     from reconcile_checks where task_id = $1 order by effect_key, id desc`,
    [taskId],
  );
  const out = new Map<string, ReconcileCheck>();
  for (const r of rows) {
    const answer = r.answer === null ? null : reconcileAnswerSchema.safeParse(r.answer);
    out.set(r.effect_key, {
      id: Number(r.id),
      effectKey: r.effect_key,
      status: r.status,
      requestedBy: r.requested_by,
      requestedAt: r.requested_at.toISOString(),
      answeredBy: r.answered_by,
      answeredAt: r.answered_at?.toISOString() ?? null,
      answer:
        answer === null ? null : answer.success ? answer.data : { error: "unreadable answer" },
    });
  }
  return out;
}
