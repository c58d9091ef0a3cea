// send_email over SMTP (nodemailer). The Message-ID and X-Agent-Ledger-Key carry the effect
// key, so a mail log traces back to the ledger and a receiver can deduplicate. SMTP cannot be
// asked what it received and does not honour keys: an unknown outcome goes to a human.
import nodemailer from "nodemailer";
import { z } from "zod";
import { defineTool } from "../../lib/sdk/define";
import { EffectNotPerformedError } from "../../lib/sdk/errors";

export type SendEmailConfig = { smtpUrl: string; from: string };

/** Errors that prove the server refused before accepting the message. */
const NOT_SENT_CODES = new Set(["ECONNREFUSED", "EDNS", "EAUTH", "EENVELOPE"]);

export function sendEmailTool(config: SendEmailConfig) {
  const transport = nodemailer.createTransport(config.smtpUrl);
  const domain = config.from.split("@")[1] ?? "agent-ledger.local";
  return defineTool({
    name: "send_email",
    description: "Email a customer about one invoice.",
    input: z.object({
      to: z.string().email(),
      invoiceId: z.string().min(1),
      subject: z.string().min(1).max(200),
      body: z.string().min(1).max(10_000),
    }),
    intent: (a) => ({ to: a.to, invoiceId: a.invoiceId }),
    execute: async (a, { idempotencyKey }) => {
      try {
        const info = await transport.sendMail({
          from: config.from,
          to: a.to,
          subject: a.subject,
          text: a.body,
          messageId: `<${idempotencyKey}@${domain}>`,
          headers: { "X-Agent-Ledger-Key": idempotencyKey },
        });
        return {
          messageId: info.messageId,
          accepted: info.accepted.map(String),
          response: info.response,
        };
      } catch (err) {
        const e = err as {
          code?: string;
          responseCode?: number;
          command?: string;
          message: string;
        };
        // A reply code means the server answered and refused; no reply (a dropped connection
        // after DATA) means we cannot know whether it kept the message.
        if (e.responseCode !== undefined || (e.code && NOT_SENT_CODES.has(e.code))) {
          throw new EffectNotPerformedError(`SMTP refused: ${e.message}`, {
            retryable: e.responseCode === undefined || e.responseCode < 500,
            cause: err,
          });
        }
        throw err;
      }
    },
  });
}
