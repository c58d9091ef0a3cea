import { screenRoute } from "../../../../lib/api/screen-route";
import { getDb, getPool } from "../../../../lib/server/db";
import {
  getTaskScreen,
  taskScreenSearchSchema,
} from "../../../../lib/server/queries/get-task-screen";

export const dynamic = "force-dynamic";

export const GET = screenRoute({
  scope: "tasks:read",
  search: taskScreenSearchSchema,
  read: (viewer, search) => getTaskScreen(getDb(), getPool(), viewer, search),
});
