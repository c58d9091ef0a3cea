// The demo SMTP sink's contract: what it records per delivered message and the faults it
// injects. Other processes (the crash harness) parse its control API with these schemas.
import { z } from "zod";

const rate = z.number().min(0).max(1);

export const smtpFaultsSchema = z
  .strictObject({
    /** Makes the fault sequence repeatable; setting faults restarts it. */
    seed: z.number().int().optional(),
    /** Answer the message with 451 instead of 250: not delivered, nothing recorded. */
    tempFailRate: rate.optional(),
    /** Record the message, then close the connection without the final 250. */
    dropAfterAcceptRate: rate.optional(),
    /** Wait this long before answering the message. */
    delayMs: z.number().int().min(0).max(600_000).optional(),
  })
  .refine((f) => (f.tempFailRate ?? 0) + (f.dropAfterAcceptRate ?? 0) <= 1, {
    message: "tempFailRate + dropAfterAcceptRate must not exceed 1",
  });
export type SmtpFaults = z.infer<typeof smtpFaultsSchema>;

export const receivedMessageSchema = z.object({
  /** The Message-ID header, angle brackets included; null if the message had none. */
  messageId: z.string().nullable(),
  /** The X-Agent-Ledger-Key header: the effect key the sender acted under. */
  ledgerKey: z.string().nullable(),
  /** Envelope sender (MAIL FROM). */
  from: z.string(),
  /** Envelope recipients (RCPT TO): who the message was actually delivered to, Bcc included. */
  to: z.array(z.string()),
  subject: z.string().nullable(),
  text: z.string().nullable(),
  receivedAt: z.iso.datetime(),
  /** accepted: the client got 250; dropped: delivered, but the client never heard so. */
  outcome: z.enum(["accepted", "dropped"]),
});
export type ReceivedMessage = z.infer<typeof receivedMessageSchema>;
