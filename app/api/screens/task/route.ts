import { screenRoute } from "../../../../lib/api/screen-route";
import {
  getTaskScreen,
  taskScreenSearchSchema,
} from "../../../../lib/server/queries/get-task-screen";

export const dynamic = "force-dynamic";

export const GET = screenRoute({
  scope: "tasks:read",
  search: taskScreenSearchSchema,
  read: (viewer, search, { db, pool }) => getTaskScreen(db, pool, viewer, search),
});
