// Ed25519 keys for signed checkpoints (node:crypto). Keys are accepted as PEM, or as base64 of
// the raw 32-byte seed (private) or raw 32-byte key (public).
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  sign,
  verify,
} from "node:crypto";

const PKCS8_ED25519_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");
const SPKI_ED25519_PREFIX = Buffer.from("302a300506032b6570032100", "hex");

export class SigningKeyError extends Error {
  override name = "SigningKeyError";
}

export function parsePrivateKey(text: string, label = "LEDGER_SIGNING_KEY"): KeyObject {
  try {
    if (text.includes("-----BEGIN")) return createPrivateKey(text);
    const raw = Buffer.from(text.trim(), "base64");
    if (raw.length !== 32) throw new Error(`expected 32 bytes, got ${raw.length}`);
    return createPrivateKey({
      key: Buffer.concat([PKCS8_ED25519_PREFIX, raw]),
      format: "der",
      type: "pkcs8",
    });
  } catch (err) {
    throw new SigningKeyError(
      `${label} is not an Ed25519 private key (PEM, or base64 of the 32-byte seed): ${(err as Error).message}`,
    );
  }
}

export function parsePublicKey(text: string, label = "LEDGER_PUBLIC_KEY"): KeyObject {
  try {
    if (text.includes("-----BEGIN")) return createPublicKey(text);
    const raw = Buffer.from(text.trim(), "base64");
    if (raw.length !== 32) throw new Error(`expected 32 bytes, got ${raw.length}`);
    return createPublicKey({
      key: Buffer.concat([SPKI_ED25519_PREFIX, raw]),
      format: "der",
      type: "spki",
    });
  } catch (err) {
    throw new SigningKeyError(
      `${label} is not an Ed25519 public key (PEM, or base64 of the 32-byte key): ${(err as Error).message}`,
    );
  }
}

export function rawPublicKey(key: KeyObject): string {
  const pub = key.type === "public" ? key : createPublicKey(key);
  const der = pub.export({ format: "der", type: "spki" });
  return der.subarray(SPKI_ED25519_PREFIX.length).toString("base64");
}

export function generateSigningKey(): { privateKey: string; publicKey: string } {
  const pair = generateKeyPairSync("ed25519");
  const der = pair.privateKey.export({ format: "der", type: "pkcs8" });
  return {
    privateKey: der.subarray(PKCS8_ED25519_PREFIX.length).toString("base64"),
    publicKey: rawPublicKey(pair.publicKey),
  };
}

/**
 * A short name for a public key, so a statement says which key signed it and verify can tell
 * "signed by another key" from "forged": the first 16 hex digits of sha256 over the raw key.
 */
export function keyId(key: KeyObject): string {
  const raw = Buffer.from(rawPublicKey(key), "base64");
  return `ed25519:${createHash("sha256").update(raw).digest("hex").slice(0, 16)}`;
}

/** Ed25519 over the UTF-8 bytes of `text` (a checkpoint statement, or a legacy digest). */
export function signText(key: KeyObject, text: string): string {
  return sign(null, Buffer.from(text, "utf8"), key).toString("base64");
}

export function verifyText(key: KeyObject, text: string, signature: string): boolean {
  try {
    return verify(null, Buffer.from(text, "utf8"), key, Buffer.from(signature, "base64"));
  } catch {
    return false;
  }
}

/** The verifying key from configuration: the public key, or the one derived from the private key. */
export function configuredPublicKey(cfg: {
  LEDGER_PUBLIC_KEY?: string;
  LEDGER_SIGNING_KEY?: string;
}): KeyObject | undefined {
  if (cfg.LEDGER_PUBLIC_KEY) return parsePublicKey(cfg.LEDGER_PUBLIC_KEY);
  if (cfg.LEDGER_SIGNING_KEY) return createPublicKey(parsePrivateKey(cfg.LEDGER_SIGNING_KEY));
  return undefined;
}
