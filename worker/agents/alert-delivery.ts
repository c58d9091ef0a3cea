// alert-delivery: the built-in agent that sends one alert (one rule, one event) per task. The
// evaluator enqueues it with the key alert:<rule>:<event>; the send is an effect of the
// runtime, so retries with backoff, deduplication and dead letters are the runtime's own.
import { z } from "zod";
import { ALERT_DELIVERY_AGENT, ALERT_DESTINATIONS } from "../../lib/domain/alerts";
import { defineAgent } from "../../lib/sdk/define";
import {
  alertEventSchema,
  slackMessageTool,
  type WebhookToolConfig,
  webhookTool,
} from "../tools/webhook";

export const alertDeliveryInput = z.object({
  ruleId: z.string().uuid(),
  destination: z.enum(ALERT_DESTINATIONS),
  event: alertEventSchema,
});

export function alertDeliveryAgent(config: WebhookToolConfig) {
  return defineAgent({
    name: ALERT_DELIVERY_AGENT,
    description: "Delivers one alert to its rule's Slack or signed webhook destination.",
    input: alertDeliveryInput,
    tools: { webhook: webhookTool(config), slack_message: slackMessageTool(config) },
    // A receiver that is down for a while is normal: keep trying for about an hour.
    policy: { maxAttempts: 8, backoffInitialMs: 5_000, backoffFactor: 2, backoffMaxMs: 600_000 },
    run: async (ctx, input) => {
      const args = { ruleId: input.ruleId, event: input.event };
      return input.destination === "webhook"
        ? ctx.tool("webhook", args)
        : ctx.tool("slack_message", args);
    },
  });
}
