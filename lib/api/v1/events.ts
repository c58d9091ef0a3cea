// POST /api/v1/events: send an event to the tasks waiting for it (ctx.waitForEvent). The
// Idempotency-Key is the event's own key: the same key is the same event, delivered once.
import { z } from "zod";
import { principalOf } from "../../domain/access";
import { sendEventSchema } from "../../domain/events";
import { env } from "../../env";
import { sendEvent } from "../../server/commands/send-event";
import { getPool } from "../../server/db";
import { BODY_PROBLEMS, defineEndpoint, Reply } from "../endpoint";
import { ApiProblem } from "../problems";
import { idempotencyKeyHeader } from "./enqueue";

const sentSchema = z.object({
  event: z.object({ id: z.uuid(), name: z.string(), receivedAt: z.string() }),
  deliveredTo: z.array(z.uuid()).describe("The tasks the event reached"),
  created: z.boolean().describe("False when the Idempotency-Key was sent before"),
});
type Sent = z.output<typeof sentSchema>;

export const sendEventEndpoint = defineEndpoint({
  method: "POST",
  path: "/events",
  operationId: "sendEvent",
  tag: "Events",
  summary: "Send an event to the tasks waiting for it",
  description:
    "Every task waiting for `name` whose match the payload contains continues with the event; the event is kept (EVENT_KEEP_MS, 24 h by default) for waits that start later.",
  scope: "events:send",
  body: sendEventSchema.strict(),
  requestHeaders: [
    {
      name: "Idempotency-Key",
      description:
        "The event's key: sending it again answers with the first event and delivers nothing new (1 to 255 printable ASCII characters)",
      schema: idempotencyKeyHeader,
    },
  ],
  response: sentSchema,
  success: { 200: "The key was sent before: the first event", 201: "Sent" },
  problems: [...BODY_PROBLEMS, "idempotency-key-reused"],
  handle: async ({ body, viewer, request }) => {
    const key = idempotencyKeyHeader.parse(request.headers.get("idempotency-key") ?? undefined);
    const result = await sendEvent(getPool(), principalOf(viewer), {
      name: body.name,
      payload: body.payload,
      key,
      keepMs: env().EVENT_KEEP_MS,
    });
    if (!result.ok) {
      if (result.code === "conflict")
        throw new ApiProblem("idempotency-key-reused", result.message);
      if (result.code === "forbidden") throw new ApiProblem("forbidden", result.message);
      throw new ApiProblem("invalid-request", result.message);
    }
    return new Reply<Sent>(result.value, result.value.created ? 201 : 200);
  },
});
