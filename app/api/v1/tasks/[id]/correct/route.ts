import { route } from "../../../../../../lib/api/endpoint";
import { correctEndpoint } from "../../../../../../lib/api/v1/review";

export const dynamic = "force-dynamic";
export const POST = route(correctEndpoint);
