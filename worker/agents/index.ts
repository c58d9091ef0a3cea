// The agents this worker runs, configured from the environment. A worker claims only tasks of
// agents it has, so tasks for an agent deployed elsewhere wait for a worker that has it.
import type pg from "pg";
import { DEMO_PAYMENTS_URL, DEMO_SMTP_URL, type Env } from "../../lib/env";
import type { Agent } from "../../lib/sdk/define";
import type { ModelClient } from "../../lib/sdk/model";
import { getAlertDestination } from "../../lib/server/queries/get-alert-destination";
import { createOpenAICompatibleModel } from "../models/openai-compatible";
import { alertDeliveryAgent } from "./alert-delivery";
import { createDemoModel } from "./demo-model";
import { invoiceReminderAgent } from "./invoice-reminder";
import { refundAgent } from "./refund";

/**
 * `db`: the worker's pool. With it the worker also runs the built-in alert-delivery agent,
 * whose tools read a rule's URL and secret at the moment of sending.
 */
export function createAgents(config: Env, db?: { pool: pg.Pool }): Agent[] {
  const builtIn = db
    ? [alertDeliveryAgent({ loadDestination: (id) => getAlertDestination(db.pool, id) })]
    : [];
  return [
    ...builtIn,
    invoiceReminderAgent({ smtpUrl: config.SMTP_URL ?? DEMO_SMTP_URL, from: config.MAIL_FROM }),
    refundAgent({
      paymentsUrl: config.PAYMENTS_URL ?? DEMO_PAYMENTS_URL,
      apiKey: config.PAYMENTS_API_KEY,
      approvalThresholdCents: config.REFUND_APPROVAL_THRESHOLD,
    }),
  ];
}

export function createModel(config: Env): ModelClient {
  if (!config.MODEL_BASE_URL) return createDemoModel();
  return createOpenAICompatibleModel({
    baseURL: config.MODEL_BASE_URL,
    apiKey: config.MODEL_API_KEY,
    model: config.MODEL_NAME,
    pricing: {
      inputPerMTok: config.MODEL_INPUT_PRICE_PER_MTOK,
      outputPerMTok: config.MODEL_OUTPUT_PRICE_PER_MTOK,
    },
  });
}
