import { route } from "../../../../../lib/api/endpoint";
import { getTaskEndpoint } from "../../../../../lib/api/v1/tasks";

export const dynamic = "force-dynamic";
export const GET = route(getTaskEndpoint);
