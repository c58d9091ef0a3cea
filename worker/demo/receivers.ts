// The demo receivers at once (payments, SMTP and the alerts' webhook sink): what `worker/demo/main.ts` and end-to-end tests start so the
// example tools have a payments API and a mail hop to talk to.
import { z } from "zod";
import { paymentsFaultsSchema } from "./payments-schemas";
import { type PaymentsService, startPaymentsService } from "./payments-service";
import { smtpFaultsSchema } from "./smtp-schemas";
import { type SmtpSink, startSmtpSink } from "./smtp-sink";
import { startWebhookSink, type WebhookSink } from "./webhook-sink";

export const demoFaultsSchema = z.strictObject({
  payments: paymentsFaultsSchema.optional(),
  smtp: smtpFaultsSchema.optional(),
});
export type DemoFaults = z.infer<typeof demoFaultsSchema>;

export type DemoReceiversOptions = {
  paymentsPort?: number;
  paymentsApiKey?: string;
  smtpPort?: number;
  smtpControlPort?: number;
  /** The alerts' webhook sink; 0 or absent: a free port. */
  webhookPort?: number;
  faults?: DemoFaults;
};

export type DemoReceivers = {
  paymentsUrl: string;
  smtpUrl: string;
  smtpControlUrl: string;
  payments: PaymentsService;
  smtp: SmtpSink;
  webhooksUrl: string;
  webhooks: WebhookSink;
  stop(): Promise<void>;
};

export async function startDemoReceivers(opts: DemoReceiversOptions = {}): Promise<DemoReceivers> {
  const faults = demoFaultsSchema.parse(opts.faults ?? {});
  const payments = await startPaymentsService({
    port: opts.paymentsPort,
    apiKey: opts.paymentsApiKey,
    faults: faults.payments,
  });
  let smtp: SmtpSink;
  try {
    smtp = await startSmtpSink({
      port: opts.smtpPort,
      controlPort: opts.smtpControlPort,
      faults: faults.smtp,
    });
  } catch (err) {
    await payments.stop();
    throw err;
  }
  let webhooks: WebhookSink;
  try {
    webhooks = await startWebhookSink({ port: opts.webhookPort });
  } catch (err) {
    await Promise.all([payments.stop(), smtp.stop()]);
    throw err;
  }
  return {
    paymentsUrl: payments.url,
    smtpUrl: smtp.smtpUrl,
    smtpControlUrl: smtp.controlUrl,
    payments,
    smtp,
    webhooksUrl: webhooks.url,
    webhooks,
    async stop() {
      await Promise.all([payments.stop(), smtp.stop(), webhooks.stop()]);
    },
  };
}
