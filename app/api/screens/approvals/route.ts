import { screenRoute } from "../../../../lib/api/screen-route";
import {
  approvalsSearchSchema,
  getApprovalsScreen,
} from "../../../../lib/server/queries/get-approvals-screen";

export const dynamic = "force-dynamic";

export const GET = screenRoute({
  scope: "tasks:read",
  search: approvalsSearchSchema,
  read: (viewer, _search, { db, pool }) => getApprovalsScreen(db, pool, viewer),
});
