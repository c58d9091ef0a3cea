// npm start's demo receivers (SMTP sink and payments service) as a child process, on their
// usual ports when free. Their faults are seeded, so the demo has the same unknown outcomes,
// retries and reconciliations every time it starts on a fresh database.
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";
import { freePort } from "../db/embedded";
import { DEMO_PAYMENTS_PORT, DEMO_SMTP_PORT, DEMO_WEBHOOK_PORT } from "../lib/env";

export const DEMO_FAULTS = {
  smtp: { seed: 7, dropAfterAcceptRate: 0.2 },
  payments: { seed: 3, status502Rate: 0.25, dropAfterActRate: 0.15 },
};

export type DemoReceiversProcess = {
  child: ChildProcess;
  smtpUrl: string;
  paymentsUrl: string;
  /** The alerts' webhook sink, on DEMO_WEBHOOK_PORT when it was free. */
  webhooksUrl: string;
};

export async function startDemoReceiversProcess(root: string): Promise<DemoReceiversProcess> {
  const smtpPort = await freePort(DEMO_SMTP_PORT);
  const paymentsPort = await freePort(DEMO_PAYMENTS_PORT);
  const webhookPort = await freePort(DEMO_WEBHOOK_PORT);
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      path.join(root, "worker", "demo", "main.ts"),
      "--smtp-port",
      String(smtpPort),
      "--payments-port",
      String(paymentsPort),
      "--webhook-port",
      String(webhookPort),
      "--faults",
      JSON.stringify(DEMO_FAULTS),
    ],
    { cwd: root, stdio: ["ignore", "pipe", "inherit"] },
  );
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const first = await new Promise<string>((resolve, reject) => {
    lines.once("line", resolve);
    child.once("exit", (code) => reject(new Error(`the demo receivers exited (code ${code})`)));
  });
  lines.on("line", (line) => console.log(`[demo] ${line}`));
  const ready = JSON.parse(first) as { smtpUrl: string; paymentsUrl: string; webhooksUrl: string };
  return {
    child,
    smtpUrl: ready.smtpUrl,
    paymentsUrl: ready.paymentsUrl,
    webhooksUrl: ready.webhooksUrl,
  };
}
