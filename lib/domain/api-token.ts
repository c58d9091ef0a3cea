// API tokens: "alt_" + 32 random bytes (base64url). Only the sha256 is stored; the token is
// shown once at creation. The prefix (first 12 characters) tells tokens apart in lists. Pure, so
// both lib/auth (who sent this token) and lib/server/commands (mint one) can use it.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

export const TOKEN_PREFIX = "alt_";
const TOKEN_PATTERN = /^alt_[A-Za-z0-9_-]{43}$/;

export function generateToken(): { token: string; hash: string; prefix: string } {
  const token = `${TOKEN_PREFIX}${randomBytes(32).toString("base64url")}`;
  return { token, hash: hashToken(token), prefix: token.slice(0, 12) };
}

export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

export function looksLikeToken(value: string): boolean {
  return TOKEN_PATTERN.test(value);
}

export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, "hex");
  const y = Buffer.from(b, "hex");
  return x.length === y.length && timingSafeEqual(x, y);
}
