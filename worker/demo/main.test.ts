import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:net";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import nodemailer from "nodemailer";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { recordedRequestSchema, refundSchema } from "./payments-schemas";
import { receivedMessageSchema } from "./smtp-schemas";
import { postRefund, refundForm } from "./test-helpers";

const MAIN = fileURLToPath(new URL("./main.ts", import.meta.url));
const readySchema = z.strictObject({
  paymentsUrl: z.url(),
  smtpUrl: z.string().regex(/^smtp:\/\/127\.0\.0\.1:\d+$/),
  smtpControlUrl: z.url(),
  webhooksUrl: z.url(),
});

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  }
});

function startMain(args: string[]) {
  const child = spawn(process.execPath, ["--import", "tsx", MAIN, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = once(child, "exit").then(([code]) => ({ code: code as number | null, stderr }));
  return { child, exited };
}

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  server.close();
  if (address === null || typeof address === "string") throw new Error("no TCP address");
  return address.port;
}

async function firstLine(child: ChildProcess): Promise<string> {
  if (child.stdout === null) throw new Error("no stdout");
  const lines = createInterface({ input: child.stdout });
  for await (const line of lines) return line;
  throw new Error("stdout closed before the ready line");
}

describe("worker/demo/main.ts", () => {
  it("serves both receivers to other processes and stops cleanly on SIGTERM", async () => {
    const faults = JSON.stringify({ smtp: { dropAfterAcceptRate: 1 } });
    const { child, exited } = startMain(["--faults", faults]);
    const ready = readySchema.parse(JSON.parse(await firstLine(child)));

    const refund = await postRefund(ready.paymentsUrl, refundForm("proc-1"), { key: "k-proc" });
    expect(refundSchema.parse(refund.body).metadata.intent_key).toBe("proc-1");
    const requests = z
      .object({ requests: z.array(recordedRequestSchema) })
      .parse(await (await fetch(`${ready.paymentsUrl}/__control/requests`)).json());
    expect(requests.requests.map((r) => r.idempotencyKey)).toEqual(["k-proc"]);

    const port = new URL(ready.smtpUrl).port;
    const transport = nodemailer.createTransport(`smtp://user:pass@127.0.0.1:${port}`);
    const mail = { from: "a@x.example", to: "b@y.example", text: "hi" };
    await expect(
      transport.sendMail({ ...mail, headers: { "X-Agent-Ledger-Key": "k-mail" } }),
    ).rejects.toThrow();
    const { messages } = z
      .object({ messages: z.array(receivedMessageSchema) })
      .parse(await (await fetch(`${ready.smtpControlUrl}/__control/messages`)).json());
    expect(messages).toMatchObject([{ ledgerKey: "k-mail", outcome: "dropped" }]);

    child.kill("SIGTERM");
    expect(await exited).toMatchObject({ code: 0 });
    await expect(fetch(`${ready.paymentsUrl}/__control/requests`)).rejects.toThrow();
  });

  it("listens on the ports it is given and stops on SIGINT", async () => {
    const [payments, smtp, control, webhooks] = await Promise.all([
      freePort(),
      freePort(),
      freePort(),
      freePort(),
    ]);
    const { child, exited } = startMain([
      "--payments-port",
      String(payments),
      "--smtp-port",
      String(smtp),
      "--control-port",
      String(control),
      "--webhook-port",
      String(webhooks),
    ]);
    const ready = readySchema.parse(JSON.parse(await firstLine(child)));
    expect(ready).toEqual({
      paymentsUrl: `http://127.0.0.1:${payments}`,
      smtpUrl: `smtp://127.0.0.1:${smtp}`,
      smtpControlUrl: `http://127.0.0.1:${control}`,
      webhooksUrl: `http://127.0.0.1:${webhooks}`,
    });
    child.kill("SIGINT");
    expect(await exited).toMatchObject({ code: 0 });
  });

  it.each([
    [["--payments-port", "http"], "--payments-port"],
    [["--faults", "{nope"], "--faults"],
    [["--faults", '{"payments":{"status502Rate":3}}'], "--faults.payments.status502Rate"],
    [["--colour"], "Unknown option"],
  ])("exits 2 on bad arguments %j", async (args, message) => {
    const { exited } = startMain(args);
    const { code, stderr } = await exited;
    expect(code).toBe(2);
    expect(stderr).toContain(message);
  });
});
