// The API description, public like any published contract (it names no data).
import { openApiResponse } from "../../../../lib/api/v1";

export const dynamic = "force-dynamic";
export const GET = () => openApiResponse();
