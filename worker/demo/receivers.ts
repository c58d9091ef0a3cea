// Both demo receivers at once: what `worker/demo/main.ts` and end-to-end tests start so the
// example tools have a payments API and a mail hop to talk to.
import { z } from "zod";
import { paymentsFaultsSchema } from "./payments-schemas";
import { type PaymentsService, startPaymentsService } from "./payments-service";
import { smtpFaultsSchema } from "./smtp-schemas";
import { type SmtpSink, startSmtpSink } from "./smtp-sink";

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
  faults?: DemoFaults;
};

export type DemoReceivers = {
  paymentsUrl: string;
  smtpUrl: string;
  smtpControlUrl: string;
  payments: PaymentsService;
  smtp: SmtpSink;
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
  return {
    paymentsUrl: payments.url,
    smtpUrl: smtp.smtpUrl,
    smtpControlUrl: smtp.controlUrl,
    payments,
    smtp,
    async stop() {
      await Promise.all([payments.stop(), smtp.stop()]);
    },
  };
}
