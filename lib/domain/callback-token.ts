// A callback link's token: `<taskId>.<step>.<signature>`, the signature an HMAC-SHA256 of the
// task and step under the callback secret, so the link cannot be pointed at another task or
// step, and a changed character is refused. The workers sign, the web app verifies: both need
// the same secret (CALLBACK_SECRET, else AUTH_SECRET).
import { createHmac, timingSafeEqual } from "node:crypto";

/** What a worker signs callback links with and where they point (the web app's address). */
export type CallbackSigning = { secret: string; baseUrl: string };

/** The journal step ctx.callbackUrl records (its result: the event's name). */
export const CALLBACK_STEP = "callback url";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function signature(secret: string, taskId: string, step: number): string {
  return createHmac("sha256", secret)
    .update(`agent-ledger callback ${taskId} ${step}`)
    .digest("base64url");
}

export function signCallback(secret: string, taskId: string, step: number): string {
  return `${taskId}.${step}.${signature(secret, taskId, step)}`;
}

/** The task and step a token names, or null when it is malformed or its signature is wrong. */
export function verifyCallback(
  secret: string,
  token: string,
): { taskId: string; step: number } | null {
  const [taskId, stepText, sig, ...rest] = token.split(".");
  if (rest.length > 0 || !taskId || !stepText || !sig) return null;
  if (!UUID.test(taskId) || !/^[1-9]\d{0,8}$/.test(stepText)) return null;
  const step = Number(stepText);
  const expected = Buffer.from(signature(secret, taskId, step));
  const given = Buffer.from(sig);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  return { taskId, step };
}

/** Where a callback link points: the web app's public address and the token. */
export function callbackUrl(baseUrl: string, token: string): string {
  return `${baseUrl.replace(/\/+$/, "")}/api/v1/callbacks/${token}`;
}
