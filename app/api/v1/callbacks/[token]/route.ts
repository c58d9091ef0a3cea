// A task's callback link (ctx.callbackUrl), opened by whoever got it in an email: no token or
// session, the signed link is the authorization. GET only shows what confirming does (mail
// scanners that prefetch links fire nothing); POST, the page's button, sends the event once.
import { callbackPage, html } from "../../../../../lib/api/callback-page";
import { callbackConfig, env } from "../../../../../lib/env";
import { readCallback, redeemCallback } from "../../../../../lib/server/commands/redeem-callback";
import { getPool } from "../../../../../lib/server/db";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ token: string }> };

const notFound = () => callbackPage(404, "No such link", html`<p>This link is not valid.</p>`);
const used = () => callbackPage(410, "Link already used", html`<p>This link was used already.</p>`);

function secretOrUnavailable(): string | Response {
  const { secret } = callbackConfig(env());
  return (
    secret ??
    callbackPage(503, "Callback links are not configured", html`<p>Set CALLBACK_SECRET.</p>`)
  );
}

export async function GET(_request: Request, context: Context): Promise<Response> {
  const secret = secretOrUnavailable();
  if (typeof secret !== "string") return secret;
  const { token } = await context.params;
  const read = await readCallback(getPool(), secret, token);
  if (!read.ok) return notFound();
  if (read.value.used) return used();
  return callbackPage(
    200,
    "Confirm",
    html`<p>Confirming sends <code>${read.value.name}</code> to the task waiting for it. It can be done once.</p><form method="post"><button type="submit">Confirm</button></form>`,
  );
}

export async function POST(_request: Request, context: Context): Promise<Response> {
  const secret = secretOrUnavailable();
  if (typeof secret !== "string") return secret;
  const { token } = await context.params;
  const redeemed = await redeemCallback(getPool(), secret, token, env().EVENT_KEEP_MS);
  if (!redeemed.ok) return redeemed.code === "not_found" ? notFound() : used();
  return callbackPage(200, "Confirmed", html`<p>Thank you: the task continues.</p>`);
}
