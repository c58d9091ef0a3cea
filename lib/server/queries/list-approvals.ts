// The approvals screen: gated effects waiting for a person, oldest first (the longest wait is
// the most urgent), with the exact payload and fingerprint an approval would be bound to; and
// the latest decisions. Waits come from the database clock, not the web server's.
import { asc, count, desc, eq, ne, sql } from "drizzle-orm";
import type { Db } from "../../../db/client";
import { approvals, tasks } from "../../../db/schema";
import { requireScope, type Viewer } from "../../domain/access";
import type { JsonValue } from "../../domain/json";
import type { DeadReason, TaskStatus } from "../../domain/task-states";
import { payload, seesPayloads } from "./payloads";

export const PENDING_APPROVALS_LIMIT = 100;
export const DECIDED_APPROVALS_LIMIT = 20;

type ApprovalBaseDto = {
  id: number;
  taskId: string;
  agent: string;
  taskStatus: TaskStatus;
  taskDeadReason: DeadReason | null;
  tool: string;
  effectKey: string;
  fingerprint: string;
  /** The exact (redacted) arguments the decision is bound to; a payload (see payloads.ts). */
  args: JsonValue;
  /** ISO 8601, UTC. */
  requestedAt: string;
};

export type PendingApprovalDto = ApprovalBaseDto & {
  /** Seconds since the request, on the database clock. */
  waitedSeconds: number;
};

export type DecidedApprovalDto = ApprovalBaseDto & {
  status: "approved" | "rejected";
  decidedBy: string | null;
  decidedAt: string;
  reason: string | null;
  /** When the approved effect first ran; null if it has not (or was rejected). */
  usedAt: string | null;
};

export type ApprovalsDto = {
  /** Oldest request first, up to PENDING_APPROVALS_LIMIT. */
  pending: PendingApprovalDto[];
  pendingTotal: number;
  /** Most recent decision first, up to DECIDED_APPROVALS_LIMIT. */
  decided: DecidedApprovalDto[];
  /** The viewer lacks `payloads:read`: every `args` is HIDDEN_PAYLOAD. */
  payloadsHidden: boolean;
  asOf: string;
};

export async function listApprovals(db: Db, viewer: Viewer | null): Promise<ApprovalsDto> {
  const visible = seesPayloads(requireScope(viewer, "tasks:read"));
  return db.transaction(
    async (tx) => {
      const base = {
        id: approvals.id,
        taskId: approvals.taskId,
        agent: tasks.agent,
        taskStatus: tasks.status,
        taskDeadReason: tasks.deadReason,
        tool: approvals.tool,
        effectKey: approvals.effectKey,
        fingerprint: approvals.fingerprint,
        args: approvals.args,
        requestedAt: approvals.requestedAt,
      };

      const pendingRows = await tx
        .select({
          ...base,
          waitedSeconds: sql<number>`extract(epoch from now() - ${approvals.requestedAt})::float8`,
        })
        .from(approvals)
        .innerJoin(tasks, eq(tasks.id, approvals.taskId))
        .where(eq(approvals.status, "pending"))
        .orderBy(asc(approvals.requestedAt), asc(approvals.id))
        .limit(PENDING_APPROVALS_LIMIT);

      const [totals] = await tx
        .select({
          pending: count(),
          asOf: sql<Date>`now()`.mapWith(approvals.requestedAt),
        })
        .from(approvals)
        .where(eq(approvals.status, "pending"));

      const decidedRows = await tx
        .select({
          ...base,
          status: approvals.status,
          decidedBy: approvals.decidedBy,
          decidedAt: approvals.decidedAt,
          reason: approvals.reason,
          usedAt: approvals.usedAt,
        })
        .from(approvals)
        .innerJoin(tasks, eq(tasks.id, approvals.taskId))
        .where(ne(approvals.status, "pending"))
        .orderBy(desc(approvals.decidedAt), desc(approvals.id))
        .limit(DECIDED_APPROVALS_LIMIT);

      const toBase = (r: (typeof pendingRows)[number] | (typeof decidedRows)[number]) => ({
        id: r.id,
        taskId: r.taskId,
        agent: r.agent,
        taskStatus: r.taskStatus,
        taskDeadReason: r.taskDeadReason,
        tool: r.tool,
        effectKey: r.effectKey,
        fingerprint: r.fingerprint,
        args: payload(visible, r.args as JsonValue),
        requestedAt: r.requestedAt.toISOString(),
      });

      return {
        pending: pendingRows.map((r) => ({
          ...toBase(r),
          waitedSeconds: Math.max(0, r.waitedSeconds),
        })),
        pendingTotal: totals?.pending ?? 0,
        decided: decidedRows.flatMap((r) =>
          // The table's check constraint ties a decision to its time; a row without one is pending.
          r.status === "pending" || r.decidedAt === null
            ? []
            : [
                {
                  ...toBase(r),
                  status: r.status,
                  decidedBy: r.decidedBy,
                  decidedAt: r.decidedAt.toISOString(),
                  reason: r.reason,
                  usedAt: r.usedAt?.toISOString() ?? null,
                },
              ],
        ),
        payloadsHidden: !visible,
        asOf: (totals?.asOf ?? new Date()).toISOString(),
      };
    },
    { isolationLevel: "repeatable read", accessMode: "read only" },
  );
}
