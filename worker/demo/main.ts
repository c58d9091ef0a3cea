// `node --import tsx worker/demo/main.ts`: the demo receivers as a process of their own, for
// the crash harness and manual runs. Prints one JSON line with the URLs once they listen.
import { parseArgs } from "node:util";
import { z } from "zod";
import { describeIssues } from "../../lib/domain/zod-issues";
import { startTracing } from "../../lib/server/tracing";
import { demoFaultsSchema, startDemoReceivers } from "./receivers";

const port = z.coerce
  .number({ message: "must be a number" })
  .int("must be a whole number")
  .min(0, "must be between 0 and 65535")
  .max(65535, "must be between 0 and 65535");

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

const faultsJson = z.string().transform((text, ctx) => {
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    ctx.addIssue({ code: "custom", message: `not JSON: ${errorMessage(err)}` });
    return z.NEVER;
  }
});

const argsSchema = z.object({
  "payments-port": port.optional(),
  "smtp-port": port.optional(),
  "control-port": port.optional(),
  "webhook-port": port.optional(),
  "api-key": z.string().min(1).optional(),
  faults: faultsJson.pipe(demoFaultsSchema).optional(),
});

function fail(message: string): never {
  console.error(`demo receivers: ${message}`);
  process.exit(2);
}

let raw: Record<string, unknown>;
try {
  raw = parseArgs({
    options: {
      "payments-port": { type: "string" },
      "smtp-port": { type: "string" },
      "control-port": { type: "string" },
      "webhook-port": { type: "string" },
      "api-key": { type: "string" },
      faults: { type: "string" },
    },
    allowPositionals: false,
  }).values;
} catch (err) {
  fail(errorMessage(err));
}
const parsed = argsSchema.safeParse(raw);
if (!parsed.success) {
  fail(describeIssues(parsed.error, "--"));
}
const args = parsed.data;

// The payments service's spans, when the OTEL_* variables ask for traces (docs/tracing.md).
const tracing = await startTracing("agent-ledger-demo").catch((err: unknown) =>
  fail(`could not start tracing: ${errorMessage(err)}`),
);

const receivers = await startDemoReceivers({
  paymentsPort: args["payments-port"],
  paymentsApiKey: args["api-key"],
  smtpPort: args["smtp-port"],
  smtpControlPort: args["control-port"],
  webhookPort: args["webhook-port"],
  faults: args.faults,
}).catch((err: unknown) => fail(`could not start: ${errorMessage(err)}`));

let stopping = false;
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    receivers
      .stop()
      .then(() => tracing?.shutdown())
      .then(
        () => {
          process.exitCode = 0;
        },
        (err: unknown) => {
          console.error(`demo receivers: stop failed: ${errorMessage(err)}`);
          process.exitCode = 1;
        },
      );
  });
}

process.stdout.write(
  `${JSON.stringify({
    paymentsUrl: receivers.paymentsUrl,
    smtpUrl: receivers.smtpUrl,
    smtpControlUrl: receivers.smtpControlUrl,
    webhooksUrl: receivers.webhooksUrl,
  })}\n`,
);
