import { route } from "../../../../lib/api/endpoint";
import { enqueueTaskEndpoint, listTasksEndpoint } from "../../../../lib/api/v1/tasks";

export const dynamic = "force-dynamic";
export const GET = route(listTasksEndpoint);
export const POST = route(enqueueTaskEndpoint);
