// The alert-delivery tools against a real local HTTP server: what each destination receives,
// and how answers map to the runtime's outcomes (acted, certainly not acted, unknown).
import { createServer, type IncomingMessage } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyWebhook } from "../../lib/domain/alerts-signature";
import { EffectNotPerformedError } from "../../lib/sdk/errors";
import { closeHttpServer, listenOnLoopback, readBody } from "../demo/http-io";
import { startWebhookSink, type WebhookSink } from "../demo/webhook-sink";
import { type AlertEventPayload, slackMessageTool, webhookTool } from "./webhook";

const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const RULE = "6f0c1f2e-8a1b-4c3d-9e4f-0a1b2c3d4e5f";
const event: AlertEventPayload = {
  id: "ledger:42",
  kind: "dead_letter",
  at: "2026-12-01T10:00:00.000Z",
  taskId: "11111111-2222-4333-8444-555555555555",
  agent: "refund",
  reason: "exhausted",
  summary:
    "Dead letter: task 1111… (refund) stopped with reason exhausted; a reviewer must triage it.",
};

let status = 200;
const seen: { headers: IncomingMessage["headers"]; body: string }[] = [];
const server = createServer((req, res) => {
  void readBody(req).then((body) => {
    seen.push({ headers: req.headers, body });
    res.writeHead(status, { "content-type": "text/plain" });
    res.end("ok");
  });
});
let url = "";
let sink: WebhookSink;
beforeAll(async () => {
  url = `http://127.0.0.1:${await listenOnLoopback(server, 0)}/hook`;
  sink = await startWebhookSink({ secrets: [SECRET] });
});
afterAll(async () => {
  await Promise.all([closeHttpServer(server), sink.stop()]);
});

const ctx = { idempotencyKey: "a".repeat(64), signal: new AbortController().signal };
const lookup =
  (destination: "slack" | "webhook", target = url, enabled = true) =>
  async () => ({
    enabled,
    destination,
    url: target,
    secret: destination === "webhook" ? SECRET : null,
  });

describe("slack_message", () => {
  it('posts {"text": summary} with no signature headers', async () => {
    seen.length = 0;
    status = 200;
    const tool = slackMessageTool({ loadDestination: lookup("slack") });
    expect(await tool.execute({ ruleId: RULE, event }, ctx)).toEqual({
      delivered: true,
      status: 200,
    });
    expect(seen).toHaveLength(1);
    expect(JSON.parse(seen[0]?.body ?? "")).toEqual({ text: event.summary });
    expect(seen[0]?.headers["webhook-signature"]).toBeUndefined();
    // Not provider-idempotent: an unknown outcome there goes to a person.
    expect(tool.providerIdempotent).toBeUndefined();
  });

  it("maps answers: 4xx refused for good, 503 not sent (retry), 500 unknown", async () => {
    const tool = slackMessageTool({ loadDestination: lookup("slack") });
    status = 404;
    const refused = await tool.execute({ ruleId: RULE, event }, ctx).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(EffectNotPerformedError);
    expect((refused as EffectNotPerformedError).retryable).toBe(false);
    status = 503;
    const busy = await tool.execute({ ruleId: RULE, event }, ctx).catch((e: unknown) => e);
    expect((busy as EffectNotPerformedError).retryable).toBe(true);
    status = 500;
    const unknown = await tool.execute({ ruleId: RULE, event }, ctx).catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(Error);
    expect(unknown).not.toBeInstanceOf(EffectNotPerformedError);
    status = 200;
  });

  it("sends nothing for a rule that is gone or disabled, and refuses no-one-listening as not sent", async () => {
    seen.length = 0;
    const gone = slackMessageTool({ loadDestination: async () => null });
    expect(await gone.execute({ ruleId: RULE, event }, ctx)).toEqual({
      delivered: false,
      why: "the rule was deleted",
    });
    const off = slackMessageTool({ loadDestination: lookup("slack", url, false) });
    expect(await off.execute({ ruleId: RULE, event }, ctx)).toMatchObject({ delivered: false });
    expect(seen).toHaveLength(0);
    const spare = createServer();
    const port = await listenOnLoopback(spare, 0);
    await closeHttpServer(spare);
    const closed = slackMessageTool({
      loadDestination: lookup("slack", `http://127.0.0.1:${port}/x`),
    });
    const err = await closed.execute({ ruleId: RULE, event }, ctx).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EffectNotPerformedError);
  });
});

describe("webhook", () => {
  it("signs in the Standard Webhooks format with the effect key as webhook-id", async () => {
    const now = Math.floor(Date.now() / 1000);
    const tool = webhookTool({
      loadDestination: lookup("webhook", `${sink.url}/in`),
      nowSeconds: () => now,
    });
    expect(tool.providerIdempotent).toBe(true);
    await tool.execute({ ruleId: RULE, event }, ctx);
    const [got] = sink.requests();
    expect(got).toMatchObject({ id: ctx.idempotencyKey, timestamp: now, verified: true });
    const msg = { id: ctx.idempotencyKey, timestamp: now, body: got?.body ?? "" };
    expect(verifyWebhook(SECRET, msg, got?.signature ?? "", now)).toBe(true);
    expect(JSON.parse(got?.body ?? "")).toEqual({
      type: "alert.dead_letter",
      timestamp: event.at,
      data: { ruleId: RULE, ...event },
    });
  });

  it("the sink acts once per webhook-id and refuses a bad signature", async () => {
    const tool = webhookTool({ loadDestination: lookup("webhook", `${sink.url}/in`) });
    const key = { ...ctx, idempotencyKey: "b".repeat(64) };
    await tool.execute({ ruleId: RULE, event }, key);
    await tool.execute({ ruleId: RULE, event }, key);
    const mine = sink.requests().filter((r) => r.id === key.idempotencyKey);
    expect(mine.map((r) => [r.verified, r.duplicate])).toEqual([
      [true, false],
      [true, true],
    ]);
    const forged = await fetch(`${sink.url}/in`, {
      method: "POST",
      headers: {
        "webhook-id": "x",
        "webhook-timestamp": String(Math.floor(Date.now() / 1000)),
        "webhook-signature": "v1,AAAA",
      },
      body: "{}",
    });
    expect(forged.status).toBe(401);
  });
});
