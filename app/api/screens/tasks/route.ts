import { screenRoute } from "../../../../lib/api/screen-route";
import { listTasks, taskSearchSchema } from "../../../../lib/server/queries/list-tasks";

export const dynamic = "force-dynamic";

export const GET = screenRoute({
  scope: "tasks:read",
  search: taskSearchSchema,
  read: (viewer, search, { db }) => listTasks(db, viewer, search),
});
