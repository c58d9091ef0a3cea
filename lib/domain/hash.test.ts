import { describe, expect, it } from "vitest";
import { deriveEffectKey, entryHash, GENESIS_HASH, payloadFingerprint, sha256Hex } from "./hash";

describe("deriveEffectKey", () => {
  it("is sha256 of the canonical [taskId, tool, intent]", () => {
    const key = deriveEffectKey("t1", "send_email", { to: "a@b.c", invoiceId: "inv_1" });
    expect(key).toBe(sha256Hex('["t1","send_email",{"invoiceId":"inv_1","to":"a@b.c"}]'));
  });

  it("does not depend on the order of intent fields", () => {
    expect(deriveEffectKey("t", "x", { a: 1, b: 2 })).toBe(
      deriveEffectKey("t", "x", { b: 2, a: 1 }),
    );
  });

  it("differs per task, tool and intent", () => {
    const base = deriveEffectKey("t", "x", { a: 1 });
    expect(deriveEffectKey("u", "x", { a: 1 })).not.toBe(base);
    expect(deriveEffectKey("t", "y", { a: 1 })).not.toBe(base);
    expect(deriveEffectKey("t", "x", { a: 2 })).not.toBe(base);
  });
});

describe("entryHash", () => {
  const entry = {
    stream: "system",
    seq: 1,
    at: "2026-11-29T00:00:00.000Z",
    kind: "policy.changed",
    actor: "admin@example.com",
    taskId: null,
    key: null,
    data: { before: null, after: { maxAttempts: 3 } },
  };

  it("chains on the previous hash", () => {
    const a = entryHash(GENESIS_HASH, entry);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(entryHash("1".repeat(64), entry)).not.toBe(a);
  });

  it("covers every field", () => {
    const a = entryHash(GENESIS_HASH, entry);
    for (const change of [
      { seq: 2 },
      { stream: "other" },
      { at: "2026-11-29T00:00:00.001Z" },
      { kind: "policy.changes" },
      { actor: "x" },
      { taskId: "00000000-0000-0000-0000-000000000000" },
      { key: "k" },
      { data: { before: null, after: { maxAttempts: 4 } } },
    ]) {
      expect(entryHash(GENESIS_HASH, { ...entry, ...change })).not.toBe(a);
    }
  });

  it("fingerprints payloads canonically", () => {
    expect(payloadFingerprint({ a: 1, b: [1, 2] })).toBe(payloadFingerprint({ b: [1, 2], a: 1 }));
  });
});
