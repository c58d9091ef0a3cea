// The alert-delivery tools: `webhook` (signed in the Standard Webhooks format) and
// `slack_message` (a Slack-compatible incoming webhook). Both take {ruleId, event}; the intent
// is {rule, event}, so the effect key is the same on every attempt and is the webhook-id.
//
// Only `webhook` is providerIdempotent: Standard Webhooks asks receivers to deduplicate by
// webhook-id, so after a crash between sending and recording the runtime resends with the
// same id and the receiver sees it once. A Slack incoming webhook has no idempotency key:
// a resend would post twice, so an unknown outcome there goes to a person, like SMTP.
import { z } from "zod";
import { ALERT_KINDS, type AlertDestination, alertUrlSchema } from "../../lib/domain/alerts";
import { webhookHeaders } from "../../lib/domain/alerts-signature";
import { defineTool } from "../../lib/sdk/define";
import { EffectNotPerformedError } from "../../lib/sdk/errors";

export type AlertDestinationLookup = (ruleId: string) => Promise<{
  enabled: boolean;
  destination: AlertDestination;
  url: string;
  secret: string | null;
} | null>;

export type WebhookToolConfig = {
  loadDestination: AlertDestinationLookup;
  /** How long to wait for a receiver's answer; past it the outcome is unknown. */
  timeoutMs?: number;
  /** Unix seconds, for the webhook-timestamp header (tests pin it). */
  nowSeconds?: () => number;
};

export const alertEventSchema = z.object({
  id: z.string().min(1).max(200),
  kind: z.enum(ALERT_KINDS),
  at: z.string().datetime({ offset: true }),
  taskId: z.string().uuid().nullable(),
  agent: z.string().max(100).nullable(),
  reason: z.string().max(100).nullable(),
  summary: z.string().max(2_000),
  /** Spend alerts: the money spent (today, or in the last hour). */
  amount: z.number().min(0).optional(),
});
export type AlertEventPayload = z.infer<typeof alertEventSchema>;

const deliveryInput = z.object({ ruleId: z.string().uuid(), event: alertEventSchema });

/** Errors that prove nothing reached the receiver. */
const NOT_SENT_CODES = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH"]);

type Delivered = { delivered: true; status: number } | { delivered: false; why: string };

/** The Standard Webhooks payload: type, timestamp and the event as data. */
export function webhookBody(ruleId: string, event: AlertEventPayload): string {
  return JSON.stringify({
    type: `alert.${event.kind}`,
    timestamp: event.at,
    data: { ruleId, ...event },
  });
}

async function post(
  config: WebhookToolConfig,
  url: string,
  headers: Record<string, string>,
  body: string,
  signal: AbortSignal,
): Promise<number> {
  const checked = alertUrlSchema.safeParse(url);
  if (!checked.success) {
    throw new EffectNotPerformedError(`the rule's URL is not http(s)`, { retryable: false });
  }
  let res: Response;
  try {
    res = await fetch(checked.data, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body,
      redirect: "manual",
      signal: AbortSignal.any([signal, AbortSignal.timeout(config.timeoutMs ?? 10_000)]),
    });
  } catch (err) {
    const code = (err as { cause?: { code?: string } }).cause?.code;
    if (code && NOT_SENT_CODES.has(code)) {
      throw new EffectNotPerformedError(`receiver unreachable (${code})`, { cause: err });
    }
    // Sent, or perhaps sent: the answer never came.
    throw err;
  }
  await res.body?.cancel().catch(() => undefined);
  if (res.ok) return res.status;
  // A gateway that could not reach the receiver, or a receiver asking us to slow down.
  if ([429, 502, 503, 504].includes(res.status)) {
    throw new EffectNotPerformedError(`receiver answered ${res.status}`);
  }
  if (res.status >= 500) throw new Error(`receiver answered ${res.status}; it may have acted`);
  throw new EffectNotPerformedError(`receiver refused (${res.status})`, { retryable: false });
}

/** A rule deleted, disabled or changed to the other destination since the event: send nothing. */
async function currentDestination(
  config: WebhookToolConfig,
  ruleId: string,
  want: AlertDestination,
): Promise<{ skip: string } | { dest: { url: string; secret: string | null } }> {
  const dest = await config.loadDestination(ruleId);
  if (!dest) return { skip: "the rule was deleted" };
  if (!dest.enabled) return { skip: "the rule is disabled" };
  if (dest.destination !== want) return { skip: `the rule now sends to ${dest.destination}` };
  return { dest };
}

export function webhookTool(config: WebhookToolConfig) {
  return defineTool({
    name: "webhook",
    description: "Send one alert to a signed webhook (Standard Webhooks).",
    input: deliveryInput,
    intent: (a) => ({ rule: a.ruleId, event: a.event.id }),
    providerIdempotent: true,
    // Receivers keep seen ids for a while, not forever: past a day, a person decides.
    dedupWindowMs: 24 * 60 * 60 * 1000,
    execute: async (a, { idempotencyKey, signal }): Promise<Delivered> => {
      const found = await currentDestination(config, a.ruleId, "webhook");
      if ("skip" in found) return { delivered: false, why: found.skip };
      const { url, secret } = found.dest;
      if (!secret)
        throw new EffectNotPerformedError("the rule has no secret", { retryable: false });
      const body = webhookBody(a.ruleId, a.event);
      const timestamp = (config.nowSeconds ?? (() => Math.floor(Date.now() / 1000)))();
      const headers = webhookHeaders(secret, { id: idempotencyKey, timestamp, body });
      return { delivered: true, status: await post(config, url, headers, body, signal) };
    },
  });
}

export function slackMessageTool(config: WebhookToolConfig) {
  return defineTool({
    name: "slack_message",
    description: "Post one alert to a Slack-compatible incoming webhook.",
    input: deliveryInput,
    intent: (a) => ({ rule: a.ruleId, event: a.event.id }),
    execute: async (a, { signal }): Promise<Delivered> => {
      const found = await currentDestination(config, a.ruleId, "slack");
      if ("skip" in found) return { delivered: false, why: found.skip };
      const body = JSON.stringify({ text: a.event.summary });
      return { delivered: true, status: await post(config, found.dest.url, {}, body, signal) };
    },
  });
}
