// Standard Webhooks signatures (https://www.standardwebhooks.com): the receiver recomputes
// base64(HMAC-SHA256(secret, `${id}.${timestamp}.${body}`)) with the base64-decoded secret.
import { createHmac, timingSafeEqual } from "node:crypto";

export const WEBHOOK_SECRET_PREFIX = "whsec_";

/** `whsec_` + base64 of the key bytes, the format Standard Webhooks libraries accept. */
export function formatWebhookSecret(keyBytes: Uint8Array): string {
  if (keyBytes.length < 24) throw new Error("a webhook secret needs at least 24 random bytes");
  return `${WEBHOOK_SECRET_PREFIX}${Buffer.from(keyBytes).toString("base64")}`;
}

export function isWebhookSecret(secret: string): boolean {
  return /^whsec_[A-Za-z0-9+/]{32,}={0,2}$/.test(secret);
}

function keyOf(secret: string): Buffer {
  const encoded = secret.startsWith(WEBHOOK_SECRET_PREFIX)
    ? secret.slice(WEBHOOK_SECRET_PREFIX.length)
    : secret;
  return Buffer.from(encoded, "base64");
}

export type SignedMessage = { id: string; timestamp: number; body: string };

/** "v1,<base64 signature>", the value of the webhook-signature header. */
export function signWebhook(secret: string, msg: SignedMessage): string {
  const mac = createHmac("sha256", keyOf(secret))
    .update(`${msg.id}.${msg.timestamp}.${msg.body}`, "utf8")
    .digest("base64");
  return `v1,${mac}`;
}

/** The three headers a Standard Webhooks receiver reads. */
export function webhookHeaders(secret: string, msg: SignedMessage): Record<string, string> {
  return {
    "webhook-id": msg.id,
    "webhook-timestamp": String(msg.timestamp),
    "webhook-signature": signWebhook(secret, msg),
  };
}

/**
 * Checks a webhook-signature header (space-separated "v1,<sig>" candidates, as the spec allows
 * during key rotation) and the timestamp's distance from `nowSeconds`.
 */
export function verifyWebhook(
  secret: string,
  msg: SignedMessage,
  signatureHeader: string,
  nowSeconds: number,
  toleranceSeconds = 300,
): boolean {
  if (!Number.isInteger(msg.timestamp)) return false;
  if (Math.abs(nowSeconds - msg.timestamp) > toleranceSeconds) return false;
  const expected = Buffer.from(signWebhook(secret, msg).slice(3), "base64");
  return signatureHeader.split(" ").some((candidate) => {
    const [version, sig] = candidate.split(",", 2);
    if (version !== "v1" || !sig) return false;
    const given = Buffer.from(sig, "base64");
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
