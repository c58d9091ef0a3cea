import { route } from "../../../../../../lib/api/endpoint";
import { approveEndpoint } from "../../../../../../lib/api/v1/review";

export const dynamic = "force-dynamic";
export const POST = route(approveEndpoint);
