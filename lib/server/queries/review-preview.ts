// The preview a reviewer confirms before a replay or resume, with the tools that move money
// marked, and the reads the two-person rule shares with the review screens. Reads only.
import { z } from "zod";
import type { SqlClient } from "../../../db/client";
import { previewReplay, type ReplayEffect, type ReplayPreview } from "./preview-replay";

export type ReviewAction = "replay" | "approve";

export type ReviewEffect = ReplayEffect & {
  /** The tool moves money (catalog flag, or an approval the worker marked `money`). */
  money: boolean;
  /** The re-run will or may perform it: failed, unknown outcome, or arguments that may change. */
  acts: boolean;
};

/** What a replay or resume would do, with the tools that move money marked. */
export type ReviewPreview = Omit<ReplayPreview, "effects"> & {
  action: ReviewAction;
  effects: ReviewEffect[];
  /** False when no worker has published this agent: its tools count as not moving money. */
  catalogKnown: boolean;
  moneyTools: string[];
  /** True when a second, different reviewer must confirm; `reasons` says why. */
  twoPerson: boolean;
  reasons: string[];
};

const catalogToolsSchema = z.array(
  z.looseObject({ name: z.string(), money: z.boolean().optional() }),
);

/** The agent's money tools by name, and whether the catalog knows the agent at all. */
export async function moneyToolsOf(
  client: SqlClient,
  task: { id: string; agent: string },
): Promise<{ known: boolean; money: Set<string> }> {
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
  return { known: parsed?.success === true, money };
}

/** Where a resume (approve of a dead task) continues: the first step not completed. */
export async function resumeStep(client: SqlClient, taskId: string): Promise<number> {
  const { rows } = await client.query<{ from: number }>(
    `select coalesce(min(seq) filter (where status <> 'completed'), max(seq) + 1, 1)::int as "from"
     from steps where task_id = $1`,
    [taskId],
  );
  return rows[0]?.from ?? 1;
}

/**
 * The preview of a replay from `fromStep` (or of a resume) with money marked. Two reviewers are
 * needed when a money effect would or may act, when a money tool has no effect yet (the run may
 * reach it for the first time: steps past the journal are not known in advance), or when a
 * resume would approve a pending money approval.
 */
export async function reviewPreview(
  client: SqlClient,
  task: { id: string; agent: string },
  action: ReviewAction,
  fromStep: number,
): Promise<ReviewPreview> {
  // One connection: statements in turn (pg deprecates overlapping queries on a client).
  const base = await previewReplay(client, task.id, fromStep);
  const flags = await moneyToolsOf(client, task);
  const kept = await client.query<{ tool: string }>(
    "select distinct tool from effects where task_id = $1 and step_seq < $2",
    [task.id, fromStep],
  );
  const pendingTools = await client.query<{ tool: string }>(
    "select distinct tool from approvals where task_id = $1 and status = 'pending' order by tool",
    [task.id],
  );
  const effects = base.effects.map((e) => ({
    ...e,
    money: flags.money.has(e.tool),
    acts: e.outcome === "act" || e.outcome === "outcome_unknown" || e.mayChange,
  }));
  const reasons: string[] = [];
  for (const e of effects) {
    if (!e.money || !e.acts) continue;
    reasons.push(
      e.outcome === "act"
        ? `${e.tool} (step ${e.step}) moves money and will act`
        : e.outcome === "outcome_unknown"
          ? `${e.tool} (step ${e.step}) moves money and its outcome is unknown: it may be sent again`
          : `${e.tool} (step ${e.step}) moves money and may act: a step before it runs again and may change its arguments`,
    );
  }
  const reached = new Set([...kept.rows.map((r) => r.tool), ...effects.map((e) => e.tool)]);
  for (const tool of [...flags.money].sort()) {
    if (!reached.has(tool)) {
      reasons.push(`${tool} moves money and the run may reach it for the first time`);
    }
  }
  if (action === "approve") {
    for (const r of pendingTools.rows) {
      if (flags.money.has(r.tool)) reasons.push(`the pending approval of ${r.tool} moves money`);
    }
  }
  return {
    ...base,
    action,
    effects,
    catalogKnown: flags.known,
    moneyTools: [...flags.money].sort(),
    twoPerson: reasons.length > 0,
    reasons,
  };
}

export type PendingRequest = {
  id: number;
  action: ReviewAction;
  fromStep: number;
  taskVersion: number;
  requestedBy: string;
  requestedAt: Date;
};

const paramsSchema = z.looseObject({ fromStep: z.number().int() });

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
  };
}
