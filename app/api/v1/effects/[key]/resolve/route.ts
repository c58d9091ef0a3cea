import { route } from "../../../../../../lib/api/endpoint";
import { resolveEndpoint } from "../../../../../../lib/api/v1/review";

export const dynamic = "force-dynamic";
export const POST = route(resolveEndpoint);
