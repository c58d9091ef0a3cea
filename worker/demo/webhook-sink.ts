// A Standard Webhooks receiver on 127.0.0.1 for the demo and the tests: it verifies every
// signature, deduplicates by webhook-id as the spec asks, and records every request, so a
// test can count requests and distinct ids. GET /requests answers what it has seen.
import { createServer } from "node:http";
import { verifyWebhook } from "../../lib/domain/alerts-signature";
import { DEMO_WEBHOOK_SECRET } from "../../lib/env";
import { closeHttpServer, isLoopback, listenOnLoopback, readBody, sendJson } from "./http-io";

export type ReceivedWebhook = {
  id: string | null;
  timestamp: number | null;
  /** The webhook-signature header as sent. */
  signature: string;
  /** The signature matched one of the sink's secrets, within the timestamp tolerance. */
  verified: boolean;
  /** An earlier verified request carried the same webhook-id. */
  duplicate: boolean;
  path: string;
  body: string;
  receivedAt: string;
};

export type WebhookSink = {
  url: string;
  port: number;
  requests(): ReceivedWebhook[];
  /** Verified requests with an id not seen before: what the receiver acted on. */
  accepted(): ReceivedWebhook[];
  addSecret(secret: string): void;
  stop(): Promise<void>;
};

export type WebhookSinkOptions = { port?: number; secrets?: readonly string[] };

export async function startWebhookSink(opts: WebhookSinkOptions = {}): Promise<WebhookSink> {
  const secrets = new Set(opts.secrets ?? [DEMO_WEBHOOK_SECRET]);
  const received: ReceivedWebhook[] = [];
  const seen = new Set<string>();

  const server = createServer((req, res) => {
    void (async () => {
      const path = req.url ?? "/";
      if (req.method === "GET" && path === "/requests") {
        if (!isLoopback(req.socket.remoteAddress))
          return sendJson(res, 403, { error: "loopback only" });
        return sendJson(res, 200, {
          requests: received.length,
          distinctIds: new Set(received.map((r) => r.id)).size,
          accepted: received.filter((r) => r.verified && !r.duplicate).length,
          received,
        });
      }
      if (req.method !== "POST") return sendJson(res, 405, { error: "POST only" });
      const body = await readBody(req);
      const id = header(req.headers["webhook-id"]);
      const ts = Number(header(req.headers["webhook-timestamp"]));
      const timestamp = Number.isInteger(ts) ? ts : null;
      const signature = header(req.headers["webhook-signature"]) ?? "";
      const now = Math.floor(Date.now() / 1000);
      const verified =
        id !== null &&
        timestamp !== null &&
        [...secrets].some((s) => verifyWebhook(s, { id, timestamp, body }, signature, now));
      const duplicate = verified && seen.has(id);
      if (verified) seen.add(id);
      received.push({
        id,
        timestamp,
        signature,
        verified,
        duplicate,
        path,
        body,
        receivedAt: new Date().toISOString(),
      });
      if (!verified) return sendJson(res, 401, { error: "bad or missing signature" });
      return sendJson(res, 200, { ok: true, duplicate });
    })().catch(() => sendJson(res, 400, { error: "unreadable request" }));
  });
  const port = await listenOnLoopback(server, opts.port ?? 0);
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests: () => [...received],
    accepted: () => received.filter((r) => r.verified && !r.duplicate),
    addSecret: (secret) => {
      secrets.add(secret);
    },
    stop: () => closeHttpServer(server),
  };
}

function header(value: string | string[] | undefined): string | null {
  return typeof value === "string" ? value : null;
}
