// The task page's Family section: the task that spawned this one (ctx.spawn), and the children
// this one spawned with their states, read in the task screen's snapshot.
import { and, asc, count, eq } from "drizzle-orm";
import { tasks } from "../../../db/schema";
import type { DeadReason, TaskStatus } from "../../domain/task-states";
import type { DbReader } from "./db-reader";

export type FamilyTaskDto = {
  id: string;
  agent: string;
  status: TaskStatus;
  deadReason: DeadReason | null;
  /** ISO 8601, UTC. */
  createdAt: string;
};

export type TaskFamilyDto = {
  parent: FamilyTaskDto | null;
  /** The first CHILDREN_SHOWN children, oldest first. */
  children: FamilyTaskDto[];
  /** All of them, and how many are in each state. */
  childCount: number;
  byStatus: Partial<Record<TaskStatus, number>>;
};

export const CHILDREN_SHOWN = 100;

const columns = {
  id: tasks.id,
  agent: tasks.agent,
  status: tasks.status,
  deadReason: tasks.deadReason,
  createdAt: tasks.createdAt,
};

const dto = (r: {
  id: string;
  agent: string;
  status: TaskStatus;
  deadReason: DeadReason | null;
  createdAt: Date;
}): FamilyTaskDto => ({ ...r, createdAt: r.createdAt.toISOString() });

export async function readTaskFamily(
  db: DbReader,
  taskId: string,
  parentId: string | null,
): Promise<TaskFamilyDto> {
  const [parent] =
    parentId === null
      ? []
      : await db.select(columns).from(tasks).where(eq(tasks.id, parentId)).limit(1);
  const children = await db
    .select(columns)
    .from(tasks)
    .where(eq(tasks.parentId, taskId))
    .orderBy(asc(tasks.createdAt), asc(tasks.id))
    .limit(CHILDREN_SHOWN);
  const counts =
    children.length === 0
      ? []
      : await db
          .select({ status: tasks.status, n: count() })
          .from(tasks)
          .where(and(eq(tasks.parentId, taskId)))
          .groupBy(tasks.status);
  const byStatus: TaskFamilyDto["byStatus"] = {};
  for (const c of counts) byStatus[c.status] = c.n;
  return {
    parent: parent ? dto(parent) : null,
    children: children.map(dto),
    childCount: counts.reduce((sum, c) => sum + c.n, 0),
    byStatus,
  };
}
