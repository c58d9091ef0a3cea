// invoice-reminder: looks the invoice up, asks the model whether and what to email, and sends
// what the model chose. The model's decision is a step, so a retry sends what it decided then.
import { z } from "zod";
import { sha256Hex } from "../../lib/domain/hash";
import { defineAgent } from "../../lib/sdk/define";
import { type SendEmailConfig, sendEmailTool } from "../tools/send-email";

export const invoiceReminderInput = z.object({
  invoiceId: z.string().min(1).max(100),
  customerEmail: z.string().email(),
});

/** Demo invoice data, derived from the id so every run sees the same invoice. */
export function lookUpInvoice(invoiceId: string) {
  const n = Number.parseInt(sha256Hex(invoiceId).slice(0, 8), 16);
  return { invoiceId, amountCents: 5_000 + (n % 95_000), currency: "usd", daysOverdue: n % 45 };
}

export const INVOICE_SYSTEM_PROMPT =
  "You chase unpaid invoices politely. If an invoice is overdue, call send_email once with a short, friendly reminder. If it is not overdue, do nothing.";

export function invoiceReminderAgent(mail: SendEmailConfig) {
  return defineAgent({
    name: "invoice-reminder",
    description: "Reminds a customer of an overdue invoice by email.",
    input: invoiceReminderInput,
    tools: { send_email: sendEmailTool(mail) },
    policy: { maxAttempts: 5 },
    run: async (ctx, input) => {
      const invoice = await ctx.step("look-up-invoice", async () => lookUpInvoice(input.invoiceId));
      const decision = await ctx.model({
        system: INVOICE_SYSTEM_PROMPT,
        prompt: `Invoice ${invoice.invoiceId} for ${input.customerEmail}: ${(invoice.amountCents / 100).toFixed(2)} ${invoice.currency.toUpperCase()}, ${invoice.daysOverdue} days overdue.`,
        tools: ["send_email"],
      });
      const sent = [];
      for (const call of decision.toolCalls) {
        if (call.toolName !== "send_email") continue;
        sent.push(await ctx.tool("send_email", call.args as never));
      }
      return { decision: decision.text, emailsSent: sent.length };
    },
  });
}
