import { route } from "../../../../lib/api/endpoint";
import { listSchedulesEndpoint } from "../../../../lib/api/v1/schedules";

export const dynamic = "force-dynamic";
export const GET = route(listSchedulesEndpoint);
