// The demo's deterministic model: it emails about overdue invoices and stays quiet otherwise,
// the way the system prompt asks. Set MODEL_BASE_URL to use a real model instead.
import type { ModelPrices } from "../../lib/sdk/ai/prices";
import type { ModelClient } from "../../lib/sdk/model";
import { createScriptedModel } from "../models/scripted";

/** The demo model's id, which MODEL_PRICES may price like any other. */
export const DEMO_MODEL = "demo-scripted";

export function createDemoModel(prices: ModelPrices = {}): ModelClient {
  return createScriptedModel(
    (req) => {
      const m = /Invoice (\S+) for (\S+): ([\d.]+) (\w+), (\d+) days overdue/.exec(
        req.prompt ?? "",
      );
      if (!m || Number(m[5]) === 0) return { text: "Not overdue: no reminder.", toolCalls: [] };
      const [, invoiceId = "", to = "", amount, currency, days] = m;
      return {
        text: `Invoice ${invoiceId} is ${days} days overdue: sending a reminder.`,
        toolCalls: [
          {
            toolName: "send_email",
            args: {
              to,
              invoiceId,
              subject: `Reminder: invoice ${invoiceId} is overdue`,
              body: `Hello,\n\nInvoice ${invoiceId} for ${amount} ${currency} is ${days} days past due. Could you arrange payment this week?\n\nThank you.`,
            },
          },
        ],
      };
    },
    prices[DEMO_MODEL] ?? { inputPerMTok: 0.15, outputPerMTok: 0.6 },
    DEMO_MODEL,
  );
}
