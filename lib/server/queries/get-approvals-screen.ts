// The approvals screen as one DTO, for its server render and for GET /api/screens/approvals that
// keeps it live: the pending requests and recent decisions, and each pending task's version and
// two-person state (what its approve and reject buttons act on), read for the same viewer.
import type pg from "pg";
import { z } from "zod";
import type { Db } from "../../../db/client";
import type { Viewer } from "../../domain/access";
import { type ApprovalReviewDto, readApprovalReviews } from "./get-review-state";
import { type ApprovalsDto, listApprovals } from "./list-approvals";

/** The page takes no search params; the live route refuses none either. */
export const approvalsSearchSchema = z.object({});

export type ApprovalsScreenDto = {
  approvals: ApprovalsDto;
  /** By task id, for every pending request. */
  reviews: Record<string, ApprovalReviewDto>;
};

export async function getApprovalsScreen(
  db: Db,
  pool: pg.Pool,
  viewer: Viewer | null,
): Promise<ApprovalsScreenDto> {
  const approvals = await listApprovals(db, viewer);
  const reviews = await readApprovalReviews(
    pool,
    viewer,
    approvals.pending.map((a) => a.taskId),
  );
  return { approvals, reviews };
}
