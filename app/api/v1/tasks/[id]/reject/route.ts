import { route } from "../../../../../../lib/api/endpoint";
import { rejectEndpoint } from "../../../../../../lib/api/v1/review";

export const dynamic = "force-dynamic";
export const POST = route(rejectEndpoint);
