// The set a bulk action acts on and what it would do, read inside the caller's transaction: the
// confirmation dialog's preview and the freezing command read the same way, so the reviewer
// confirms the set and the preview the command then records.
import { PgDialect } from "drizzle-orm/pg-core";
import type { SqlClient } from "../../../db/client";
import type { BulkAction } from "../../domain/bulk-actions";
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
            (select min(s.seq) from steps s where s.task_id = tasks.id and s.name = $${n + 1})::int as named
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
 * name, or a task no longer dead); reject and cancel have none.
 */
export async function previewsOf(
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
