// Every /api/v1 endpoint, in the order the OpenAPI document lists them. A route file under
// app/api/v1 exports `route(<one of these>)`; a test checks the two lists agree.
import packageJson from "../../../package.json" with { type: "json" };
import { env } from "../../env";
import type { Endpoint } from "../endpoint";
import { openApiDocument } from "../openapi";
import { listAgentsEndpoint } from "./agents";
import { sendEventEndpoint } from "./events";
import { getEffectEndpoint, listLedgerEndpoint, whyEndpoint } from "./ledger";
import {
  approveEndpoint,
  cancelEndpoint,
  correctEndpoint,
  rejectEndpoint,
  replayEndpoint,
  resolveEndpoint,
} from "./review";
import { listSchedulesEndpoint } from "./schedules";
import { enqueueTaskEndpoint, getTaskEndpoint, listTasksEndpoint } from "./tasks";

export const ENDPOINTS: readonly Endpoint[] = [
  listAgentsEndpoint,
  listSchedulesEndpoint,
  enqueueTaskEndpoint,
  listTasksEndpoint,
  getTaskEndpoint,
  listLedgerEndpoint,
  getEffectEndpoint,
  whyEndpoint,
  approveEndpoint,
  rejectEndpoint,
  replayEndpoint,
  correctEndpoint,
  cancelEndpoint,
  resolveEndpoint,
  sendEventEndpoint,
];

let cached: Record<string, unknown> | undefined;

export function openApi(): Record<string, unknown> {
  cached ??= openApiDocument(ENDPOINTS, {
    version: packageJson.version,
    retentionHours: env().IDEMPOTENCY_KEY_RETENTION_HOURS,
  });
  return cached;
}

export function openApiResponse(): Response {
  return Response.json(openApi(), {
    headers: { "cache-control": "public, max-age=300", "access-control-allow-origin": "*" },
  });
}
