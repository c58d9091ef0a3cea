// A local SMTP server on 127.0.0.1 that keeps every message it accepts, so the email tool can
// be run, crashed and retried against a real mail hop that counts deliveries.
import { createServer } from "node:http";
import type { Readable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import { simpleParser } from "mailparser";
import { SMTPServer, type SMTPServerError, type SMTPServerSession } from "smtp-server";
import { handleControl } from "./control-api";
import { createDice, pickFault } from "./fault-dice";
import { closeHttpServer, LOOPBACK, listenOnLoopback, sendJson } from "./http-io";
import { type ReceivedMessage, type SmtpFaults, smtpFaultsSchema } from "./smtp-schemas";

export type SmtpSinkOptions = {
  /** 0 or absent: a free port. */
  port?: number;
  /** Port of the control HTTP API; 0 or absent: a free port. */
  controlPort?: number;
  faults?: SmtpFaults;
};

export type SmtpSink = {
  smtpUrl: string;
  port: number;
  controlUrl: string;
  stop(): Promise<void>;
  messages(): ReceivedMessage[];
  setFaults(faults: SmtpFaults): void;
};

const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

function smtpError(responseCode: number, message: string): SMTPServerError {
  return Object.assign(new Error(message), { responseCode });
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) {
    chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  }
  return Buffer.concat(chunks);
}

async function toReceived(
  raw: Buffer,
  session: SMTPServerSession,
  outcome: ReceivedMessage["outcome"],
): Promise<ReceivedMessage> {
  const parsed = await simpleParser(raw);
  const ledgerKey = parsed.headers.get("x-agent-ledger-key");
  const { mailFrom, rcptTo } = session.envelope;
  return {
    messageId: parsed.messageId ?? null,
    ledgerKey: typeof ledgerKey === "string" ? ledgerKey : null,
    from: mailFrom === false ? "" : mailFrom.address,
    to: rcptTo.map((rcpt) => rcpt.address),
    subject: parsed.subject ?? null,
    text: parsed.text ?? null,
    receivedAt: new Date().toISOString(),
    outcome,
  };
}

export async function startSmtpSink(opts: SmtpSinkOptions = {}): Promise<SmtpSink> {
  let faults = smtpFaultsSchema.parse(opts.faults ?? {});
  let dice = createDice(faults.seed);
  const received: ReceivedMessage[] = [];
  const stopping = new AbortController();

  function setFaults(next: SmtpFaults): void {
    faults = smtpFaultsSchema.parse(next);
    dice = createDice(faults.seed);
  }

  const smtp = new SMTPServer({
    secure: false,
    disabledCommands: ["STARTTLS"],
    authOptional: true,
    disableReverseLookup: true,
    logger: false,
    size: MAX_MESSAGE_BYTES,
    closeTimeout: 1_000,
    // Any credentials will do: the sink stands in for a relay, it guards nothing.
    onAuth(auth, _session, callback) {
      callback(null, { user: auth.username ?? "demo" });
    },
    onData(stream, session, callback) {
      const fault = pickFault(dice, [
        ["tempFail", faults.tempFailRate],
        ["dropAfterAccept", faults.dropAfterAcceptRate],
      ] as const);
      const handle = async () => {
        const raw = await readAll(stream);
        if (stream.sizeExceeded) {
          callback(smtpError(552, "Message exceeds the fixed maximum message size"));
          return;
        }
        const delayMs = faults.delayMs ?? 0;
        if (delayMs > 0) await sleep(delayMs, undefined, { signal: stopping.signal });
        if (fault === "tempFail") {
          callback(smtpError(451, "Requested action aborted: try again later"));
          return;
        }
        received.push(await toReceived(raw, session, fault === null ? "accepted" : "dropped"));
        if (fault === null) {
          callback(null, "Message accepted");
          return;
        }
        // Delivered, but the client never hears the 250: the case it cannot tell from a loss.
        for (const connection of smtp.connections) {
          if (connection.id === session.id) connection.close();
        }
      };
      handle().catch((err: unknown) => {
        if (stopping.signal.aborted) return;
        const message = err instanceof Error ? err.message : String(err);
        callback(smtpError(554, `Could not process the message: ${message}`));
      });
    },
  });

  const port = await new Promise<number>((resolve, reject) => {
    smtp.once("error", reject);
    smtp.listen(opts.port ?? 0, LOOPBACK, () => {
      smtp.off("error", reject);
      const address = smtp.server.address();
      if (address === null || typeof address === "string") {
        reject(new Error(`expected a TCP address, got ${String(address)}`));
        return;
      }
      resolve(address.port);
    });
  });
  // Logged, not thrown: one bad client must not take the sink down.
  smtp.on("error", (err) => console.error(`[smtp-sink] ${err.message}`));

  const control = createServer((req, res) => {
    handleControl(req, res, {
      records: { messages: () => structuredClone(received) },
      faultsSchema: smtpFaultsSchema,
      getFaults: () => faults,
      setFaults,
      reset() {
        received.length = 0;
      },
    }).catch((err: unknown) => {
      if (res.headersSent || res.destroyed) return;
      sendJson(res, 500, { error: err instanceof Error ? err.message : String(err) });
    });
  });
  let controlPort: number;
  try {
    controlPort = await listenOnLoopback(control, opts.controlPort ?? 0);
  } catch (err) {
    await new Promise<void>((resolve) => smtp.close(resolve));
    throw err;
  }

  return {
    smtpUrl: `smtp://${LOOPBACK}:${port}`,
    port,
    controlUrl: `http://${LOOPBACK}:${controlPort}`,
    async stop() {
      stopping.abort();
      for (const connection of smtp.connections) connection.close();
      await Promise.all([
        new Promise<void>((resolve) => smtp.close(resolve)),
        closeHttpServer(control),
      ]);
    },
    messages: () => structuredClone(received),
    setFaults,
  };
}
