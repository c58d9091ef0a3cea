// The set a bulk action acts on and what it would do, read inside the caller's transaction: the
// confirmation dialog's preview and the freezing command read the same way, so the reviewer
// confirms the set and the preview the command then records.
import { PgDialect } from "drizzle-orm/pg-core";
import { z } from "zod";
import type { SqlClient } from "../../../db/client";
import type { BulkAction } from "../../domain/bulk-actions";
import { type MemberPreview, withAmounts } from "../../domain/bulk-preview";
import type { JsonValue } from "../../domain/json";
import type { MoneyArgs } from "../../domain/money";
import type { ReviewPreview } from "../../domain/replay-plan";
import type { TaskStatus } from "../../domain/task-states";
import { type DeadLetterFilter, deadLetterWhere } from "./dead-letter-filter";
import { resumeStep, reviewPreview } from "./preview";

/** Explicit rows at the versions the reviewer saw, or every dead task matching a filter. */
export type BulkSelection =
  | { kind: "ids"; tasks: { taskId: string; version: number }[] }
  | { kind: "filter"; filter: DeadLetterFilter };

export type BulkSetMember = {
  taskId: string;
  agent: string;
  status: TaskStatus;
  /** The version the action will check: the one the reviewer saw, or the one frozen. */
  version: number;
  /** Replay: the step the named step is in this task's journal (null: it has none). */
  fromStep: number | null;
};

const dialect = new PgDialect();

/**
 * The members, in the list's order. A filter selects only tasks already dead at `asOf` (the
 * db-clock instant the dialog opened); explicit rows are the ones the reviewer ticked. At most
 * `limit` are read (the caller refuses a set larger than it allows).
 */
export async function readBulkSet(
  client: SqlClient,
  selection: BulkSelection,
  asOf: string,
  stepName: string | null,
  limit: number,
): Promise<BulkSetMember[]> {
  const base =
    selection.kind === "filter"
      ? dialect.sqlToQuery(deadLetterWhere(selection.filter, asOf))
      : { sql: "tasks.id = any($1::uuid[])", params: [selection.tasks.map((t) => t.taskId)] };
  const n = base.params.length;
  const { rows } = await client.query<{
    id: string;
    agent: string;
    status: TaskStatus;
    version: number;
    named: number | null;
  }>(
    `select tasks.id, tasks.agent, tasks.status, tasks.version,
            (select min(s.seq) from journal_steps s where s.task_id = tasks.id and s.name = $${n + 1})::int as named
     from tasks where ${base.sql}
     order by tasks.status_changed_at desc, tasks.id desc limit $${n + 2}`,
    [...base.params, stepName, limit],
  );
  const seen =
    selection.kind === "ids"
      ? new Map(selection.tasks.map((t) => [t.taskId.toLowerCase(), t.version]))
      : null;
  return rows.map((r) => ({
    taskId: r.id,
    agent: r.agent,
    status: r.status,
    version: seen?.get(r.id) ?? r.version,
    fromStep: stepName === null ? 1 : r.named,
  }));
}

/**
 * Each member's preview for a replay or resume (null where it cannot be made: no step of the
 * name, or a task no longer dead), with the money it would move; reject and cancel have none.
 */
export async function previewsOf(
  client: SqlClient,
  action: BulkAction,
  members: readonly BulkSetMember[],
): Promise<(MemberPreview | null)[]> {
  const previews = await reviewPreviewsOf(client, action, members);
  return withMoney(client, members, previews);
}

async function reviewPreviewsOf(
  client: SqlClient,
  action: BulkAction,
  members: readonly BulkSetMember[],
): Promise<(ReviewPreview | null)[]> {
  if (action !== "replay" && action !== "resume") return [];
  const out: (ReviewPreview | null)[] = [];
  for (const m of members) {
    if (m.status !== "dead") {
      out.push(null);
      continue;
    }
    if (action === "replay") {
      out.push(
        m.fromStep === null
          ? null
          : await reviewPreview(client, { id: m.taskId, agent: m.agent }, "replay", m.fromStep),
      );
    } else {
      out.push(
        await reviewPreview(
          client,
          { id: m.taskId, agent: m.agent },
          "approve",
          await resumeStep(client, m.taskId),
        ),
      );
    }
  }
  return out;
}

const declaredSchema = z.array(
  z.looseObject({
    name: z.string(),
    moneyArgs: z.object({ amount: z.string(), currency: z.string() }).nullish(),
  }),
);

/**
 * The amounts the previews' acting money effects would move: two reads for the whole set (the
 * effects' recorded arguments, the agents' money declarations from the catalog).
 */
async function withMoney(
  client: SqlClient,
  members: readonly BulkSetMember[],
  previews: readonly (ReviewPreview | null)[],
): Promise<(MemberPreview | null)[]> {
  const keys = previews.flatMap((p) =>
    p ? p.effects.filter((e) => e.money && e.acts).map((e) => e.key) : [],
  );
  const args = new Map<string, JsonValue>();
  const declared = new Map<string, Map<string, MoneyArgs>>();
  if (keys.length > 0) {
    const recorded = await client.query<{ key: string; args: JsonValue }>(
      "select key, args from effects where key = any($1::text[])",
      [keys],
    );
    for (const r of recorded.rows) args.set(r.key, r.args);
    const agents = [...new Set(members.map((m) => m.agent))];
    const catalog = await client.query<{ name: string; tools: unknown }>(
      "select name, tools from agent_catalog where name = any($1::text[])",
      [agents],
    );
    for (const row of catalog.rows) {
      const tools = declaredSchema.safeParse(row.tools);
      const byTool = new Map<string, MoneyArgs>();
      for (const t of tools.success ? tools.data : []) {
        if (t.moneyArgs) byTool.set(t.name, t.moneyArgs);
      }
      declared.set(row.name, byTool);
    }
  }
  return previews.map((p, i) => {
    if (!p) return null;
    const agent = members[i]?.agent ?? "";
    return withAmounts(p, args, declared.get(agent) ?? new Map());
  });
}
