// The demo's agents module: what `npm start` and `npm run worker` load (`--agents
// worker/agents/index.ts`), configured from the environment, as a team's own module would be.
// A worker claims only tasks of agents it has, so tasks for an agent deployed elsewhere wait
// for a worker that has it. The built-in alert-delivery agent comes with every worker.
import {
  configuredPrices,
  DEMO_PAYMENTS_URL,
  DEMO_SMTP_URL,
  type Env,
  parseEnv,
} from "../../lib/env";
import type { AgentsModuleContext } from "../../lib/sdk/agents-module";
import type { Agent } from "../../lib/sdk/define";
import type { ModelClient } from "../../lib/sdk/model";
import { createOpenAICompatibleModel } from "../models/openai-compatible";
import { createDemoModel } from "./demo-model";
import { invoiceReminderAgent } from "./invoice-reminder";
import { refundAgent } from "./refund";

export default function agents({ env }: AgentsModuleContext): Agent[] {
  return createAgents(parseEnv(env));
}

export function model({ env }: AgentsModuleContext): ModelClient {
  return createModel(parseEnv(env));
}

export function createAgents(config: Env): Agent[] {
  return [
    invoiceReminderAgent({ smtpUrl: config.SMTP_URL ?? DEMO_SMTP_URL, from: config.MAIL_FROM }),
    refundAgent({
      paymentsUrl: config.PAYMENTS_URL ?? DEMO_PAYMENTS_URL,
      apiKey: config.PAYMENTS_API_KEY,
      approvalThresholdCents: config.REFUND_APPROVAL_THRESHOLD,
      ratePerSecond: config.PAYMENTS_RATE_LIMIT_PER_SECOND,
    }),
  ];
}

export function createModel(config: Env): ModelClient {
  const prices = configuredPrices(config);
  if (!config.MODEL_BASE_URL) return createDemoModel(prices);
  return createOpenAICompatibleModel({
    baseURL: config.MODEL_BASE_URL,
    apiKey: config.MODEL_API_KEY,
    model: config.MODEL_NAME,
    prices,
  });
}
