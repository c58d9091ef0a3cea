import { route } from "../../../../lib/api/endpoint";
import { sendEventEndpoint } from "../../../../lib/api/v1/events";

export const dynamic = "force-dynamic";
export const POST = route(sendEventEndpoint);
