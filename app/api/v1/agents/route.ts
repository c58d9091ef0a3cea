import { route } from "../../../../lib/api/endpoint";
import { listAgentsEndpoint } from "../../../../lib/api/v1/agents";

export const dynamic = "force-dynamic";
export const GET = route(listAgentsEndpoint);
