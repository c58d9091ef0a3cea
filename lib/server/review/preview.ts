// The reads every review shares, for the commands that act and the queries that show what
// they would do: the replay plan of a task, its money tools, where a resume continues, and its
// pending two-person request. Reads only, inside the caller's transaction; the decisions are
// the pure functions of lib/domain/replay-plan.
import { z } from "zod";
import type { SqlClient } from "../../../db/client";
import type { JsonValue } from "../../domain/json";
import type { MoneyArgs } from "../../domain/money";
import {
  planReplay,
  planReview,
  type ReplayEffectInput,
  type ReplayPreview,
  type ReplayStepInput,
  type ReviewAction,
  type ReviewPreview,
} from "../../domain/replay-plan";

/**
 * The plan of a replay from `fromStep`, read inside the caller's transaction. `declared`: the
 * money tools' amount arguments (moneyToolsOf), to describe a loop's earlier proposals.
 */
export async function previewReplay(
  client: SqlClient,
  taskId: string,
  fromStep: number,
  declared?: ReadonlyMap<string, MoneyArgs>,
): Promise<ReplayPreview> {
  const steps = await client.query<ReplayStepInput>(
    "select seq, kind, name from journal_steps where task_id = $1 and seq >= $2 order by seq",
    [taskId, fromStep],
  );
  const effects = await client.query<ReplayEffectInput>(
    `select step_seq as "stepSeq", tool, key, status, coalesce(lease_expires_at > now(), false) as live,
            intent, args
     from effects where task_id = $1 and step_seq >= $2 order by step_seq, created_at, key`,
    [taskId, fromStep],
  );
  return planReplay(steps.rows, effects.rows, fromStep, declared);
}

const catalogToolsSchema = z.array(
  z.looseObject({
    name: z.string(),
    money: z.boolean().optional(),
    moneyArgs: z.object({ amount: z.string(), currency: z.string() }).nullish(),
  }),
);

/**
 * The agent's money tools by name, where each says its amount is (`declared`), and whether the
 * catalog knows the agent at all.
 */
export async function moneyToolsOf(
  client: SqlClient,
  task: { id: string; agent: string },
): Promise<{ known: boolean; money: Set<string>; declared: Map<string, MoneyArgs> }> {
  const { rows } = await client.query<{ tools: unknown }>(
    "select tools from agent_catalog where name = $1",
    [task.agent],
  );
  const parsed = rows[0] ? catalogToolsSchema.safeParse(rows[0].tools) : null;
  const money = new Set(
    parsed?.success ? parsed.data.filter((t) => t.money).map((t) => t.name) : [],
  );
  // The worker marks a parked approval `money` from the tool's own definition.
  const flagged = await client.query<{ tool: string }>(
    "select distinct tool from approvals where task_id = $1 and money",
    [task.id],
  );
  for (const r of flagged.rows) money.add(r.tool);
  const declared = new Map<string, MoneyArgs>();
  for (const t of parsed?.success ? parsed.data : []) {
    if (t.moneyArgs) declared.set(t.name, t.moneyArgs);
  }
  return { known: parsed?.success === true, money, declared };
}

/** Where a resume (approve of a dead task) continues: the first step not completed. */
export async function resumeStep(client: SqlClient, taskId: string): Promise<number> {
  const { rows } = await client.query<{ from: number }>(
    `select coalesce(min(seq) filter (where status <> 'completed'), max(seq) + 1, 1)::int as "from"
     from journal_steps where task_id = $1`,
    [taskId],
  );
  return rows[0]?.from ?? 1;
}

/** The highest journaled step: a replay can start at 1 to lastStep + 1. */
export async function lastStepOf(client: SqlClient, taskId: string): Promise<number> {
  const { rows } = await client.query<{ max: number | null }>(
    "select max(seq) as max from journal_steps where task_id = $1",
    [taskId],
  );
  return rows[0]?.max ?? 0;
}

/** The preview of a replay from `fromStep` (or of a resume) with money marked. */
export async function reviewPreview(
  client: SqlClient,
  task: { id: string; agent: string },
  action: ReviewAction,
  fromStep: number,
): Promise<ReviewPreview> {
  // One connection: statements in turn (pg deprecates overlapping queries on a client).
  const flags = await moneyToolsOf(client, task);
  const plan = await previewReplay(client, task.id, fromStep, flags.declared);
  const kept = await client.query<{ tool: string }>(
    "select distinct tool from effects where task_id = $1 and step_seq < $2",
    [task.id, fromStep],
  );
  const pending = await client.query<{ tool: string }>(
    "select distinct tool from approvals where task_id = $1 and status = 'pending' order by tool",
    [task.id],
  );
  return planReview({
    plan,
    action,
    money: flags.money,
    catalogKnown: flags.known,
    keptTools: kept.rows.map((r) => r.tool),
    pendingTools: pending.rows.map((r) => r.tool),
  });
}

export type PendingRequest = {
  id: number;
  action: ReviewAction;
  fromStep: number;
  taskVersion: number;
  requestedBy: string;
  requestedAt: Date;
  /** The corrected input a replay request carries (fix the input and replay); null otherwise. */
  input: JsonValue | null;
};

const paramsSchema = z.looseObject({ fromStep: z.number().int(), input: z.json().optional() });

/** The task's pending review request, locked when `lock` (callers hold the task row too). */
export async function pendingRequestOf(
  client: SqlClient,
  taskId: string,
  lock = false,
): Promise<PendingRequest | null> {
  const { rows } = await client.query<{
    id: number;
    action: ReviewAction;
    params: unknown;
    task_version: number;
    requested_by: string;
    requested_at: Date;
  }>(
    `select id, action, params, task_version, requested_by, requested_at from review_requests
     where task_id = $1 and status = 'pending'${lock ? " for update" : ""}`,
    [taskId],
  );
  const r = rows[0];
  if (!r) return null;
  const params = paramsSchema.safeParse(r.params);
  return {
    id: Number(r.id),
    action: r.action,
    fromStep: params.success ? params.data.fromStep : 0,
    taskVersion: r.task_version,
    requestedBy: r.requested_by,
    requestedAt: r.requested_at,
    input: params.success ? (params.data.input ?? null) : null,
  };
}
