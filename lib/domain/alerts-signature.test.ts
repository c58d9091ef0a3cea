import { describe, expect, it } from "vitest";
import {
  formatWebhookSecret,
  isWebhookSecret,
  signWebhook,
  verifyWebhook,
  webhookHeaders,
} from "./alerts-signature";

// The example the Standard Webhooks specification and its reference libraries publish
// (the Svix test vector): computed by them, not by us.
const VECTOR = {
  secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
  id: "msg_p5jXN8AQM9LWM0D4loKWxJek",
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
};
const msg = { id: VECTOR.id, timestamp: VECTOR.timestamp, body: VECTOR.body };

describe("Standard Webhooks signatures", () => {
  it("signs the specification's example exactly", () => {
    expect(signWebhook(VECTOR.secret, msg)).toBe(VECTOR.signature);
    expect(webhookHeaders(VECTOR.secret, msg)).toEqual({
      "webhook-id": VECTOR.id,
      "webhook-timestamp": "1614265330",
      "webhook-signature": VECTOR.signature,
    });
  });

  it("verifies the example, and one good signature among several (key rotation)", () => {
    expect(verifyWebhook(VECTOR.secret, msg, VECTOR.signature, VECTOR.timestamp)).toBe(true);
    const header = `v1,Zm9vYmFyYmF6cXV4cXV1eHF1dXhxdXV4cXV1eHF1dXhx ${VECTOR.signature}`;
    expect(verifyWebhook(VECTOR.secret, msg, header, VECTOR.timestamp + 10)).toBe(true);
  });

  it("refuses a changed body, id or timestamp, another secret, another version, an old timestamp", () => {
    const now = VECTOR.timestamp;
    expect(
      verifyWebhook(VECTOR.secret, { ...msg, body: '{"test": 1}' }, VECTOR.signature, now),
    ).toBe(false);
    expect(verifyWebhook(VECTOR.secret, { ...msg, id: "msg_other" }, VECTOR.signature, now)).toBe(
      false,
    );
    expect(
      verifyWebhook(VECTOR.secret, { ...msg, timestamp: now + 1 }, VECTOR.signature, now),
    ).toBe(false);
    const other = formatWebhookSecret(new Uint8Array(32).fill(7));
    expect(verifyWebhook(other, msg, VECTOR.signature, now)).toBe(false);
    expect(verifyWebhook(VECTOR.secret, msg, VECTOR.signature.replace("v1,", "v2,"), now)).toBe(
      false,
    );
    expect(verifyWebhook(VECTOR.secret, msg, VECTOR.signature, now + 301)).toBe(false);
    expect(verifyWebhook(VECTOR.secret, msg, "", now)).toBe(false);
  });

  it("formats secrets as whsec_ + base64 of at least 24 bytes", () => {
    const secret = formatWebhookSecret(new Uint8Array(32).fill(1));
    expect(secret).toMatch(/^whsec_/);
    expect(isWebhookSecret(secret)).toBe(true);
    expect(isWebhookSecret(VECTOR.secret)).toBe(true);
    expect(isWebhookSecret("whsec_short")).toBe(false);
    expect(isWebhookSecret("not-a-secret-at-all-not-a-secret-at-all")).toBe(false);
    expect(() => formatWebhookSecret(new Uint8Array(8))).toThrow(/24 random bytes/);
  });
});
