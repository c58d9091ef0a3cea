import nodemailer from "nodemailer";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { receivedMessageSchema } from "./smtp-schemas";
import { type SmtpSink, startSmtpSink } from "./smtp-sink";

let sink: SmtpSink;

beforeEach(async () => {
  sink = await startSmtpSink();
});
afterEach(async () => {
  await sink.stop();
});

function send(key: string, to: string | string[] = "ap@customer.example") {
  const transport = nodemailer.createTransport(`smtp://user:pass@127.0.0.1:${sink.port}`);
  return transport.sendMail({
    from: "billing@agent-ledger.example",
    to,
    subject: `Invoice reminder ${key}`,
    text: "Your invoice INV-7 is due.",
    messageId: `<${key}@agent-ledger.example>`,
    headers: { "X-Agent-Ledger-Key": key },
  });
}

describe("delivery", () => {
  it("records a message sent through nodemailer with its ids parsed", async () => {
    expect(sink.smtpUrl).toBe(`smtp://127.0.0.1:${sink.port}`);
    const info = await send("key-1", ["ap@customer.example", "cfo@customer.example"]);
    expect(info.response).toMatch(/^250 /);
    expect(sink.messages()).toEqual([
      {
        messageId: "<key-1@agent-ledger.example>",
        ledgerKey: "key-1",
        from: "billing@agent-ledger.example",
        to: ["ap@customer.example", "cfo@customer.example"],
        subject: "Invoice reminder key-1",
        text: "Your invoice INV-7 is due.\n",
        receivedAt: expect.any(String),
        outcome: "accepted",
      },
    ]);
    expect(receivedMessageSchema.parse(sink.messages()[0])).toBeTruthy();
  });

  it("counts every delivery, repeats included", async () => {
    await send("key-2");
    await send("key-2");
    await send("key-3");
    const perKey = sink.messages().map((m) => m.ledgerKey);
    expect(perKey).toEqual(["key-2", "key-2", "key-3"]);
  });
});

describe("faults", () => {
  it("451 fails the send and records nothing", async () => {
    sink.setFaults({ tempFailRate: 1 });
    await expect(send("key-451")).rejects.toMatchObject({ responseCode: 451 });
    expect(sink.messages()).toEqual([]);
  });

  it("dropAfterAccept fails the send, yet the message was delivered", async () => {
    sink.setFaults({ dropAfterAcceptRate: 1 });
    await expect(send("key-drop")).rejects.toThrow();
    expect(sink.messages()).toMatchObject([{ ledgerKey: "key-drop", outcome: "dropped" }]);
    // The sink still takes mail afterwards.
    sink.setFaults({});
    await send("key-after");
    expect(sink.messages().map((m) => m.ledgerKey)).toEqual(["key-drop", "key-after"]);
  });

  it("delays the answer by delayMs", async () => {
    sink.setFaults({ delayMs: 250 });
    const started = performance.now();
    await send("key-slow");
    expect(performance.now() - started).toBeGreaterThanOrEqual(240);
  });

  it("repeats the same faults for the same seed", async () => {
    const run = async () => {
      sink.setFaults({ seed: 11, tempFailRate: 0.5 });
      const outcomes: string[] = [];
      for (let i = 0; i < 8; i++) {
        outcomes.push(
          await send(`seeded-${i}`).then(
            () => "sent",
            () => "failed",
          ),
        );
      }
      return outcomes;
    };
    const first = await run();
    expect(first).toContain("sent");
    expect(first).toContain("failed");
    expect(await run()).toEqual(first);
  });
});

describe("control API", () => {
  const messagesReply = z.object({ messages: z.array(receivedMessageSchema) });

  it("shows messages, sets faults and resets from a plain fetch", async () => {
    await send("key-ctl");
    const listed = messagesReply.parse(
      await (await fetch(`${sink.controlUrl}/__control/messages`)).json(),
    );
    expect(listed.messages.map((m) => m.ledgerKey)).toEqual(["key-ctl"]);

    const put = await fetch(`${sink.controlUrl}/__control/faults`, {
      method: "PUT",
      body: JSON.stringify({ tempFailRate: 1 }),
    });
    expect(put.status).toBe(200);
    await expect(send("key-ctl-2")).rejects.toMatchObject({ responseCode: 451 });
    const bad = await fetch(`${sink.controlUrl}/__control/faults`, {
      method: "PUT",
      body: JSON.stringify({ tempFailRate: 0.7, dropAfterAcceptRate: 0.7 }),
    });
    expect(bad.status).toBe(400);

    const reset = await fetch(`${sink.controlUrl}/__control/reset`, { method: "POST" });
    expect(reset.status).toBe(200);
    expect(sink.messages()).toEqual([]);
  });
});
