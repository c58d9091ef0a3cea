// A task's callback link (ctx.callbackUrl), opened by whoever got it in an email: no token or
// session, the signed link is the authorization. GET only shows what confirming does (mail
// scanners that prefetch links fire nothing); POST, the page's button, sends the event once.
import { callbackConfig, env } from "../../../../../lib/env";
import { readCallback, redeemCallback } from "../../../../../lib/server/commands/redeem-callback";
import { getPool } from "../../../../../lib/server/db";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ token: string }> };

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(status: number, title: string, body: string): Response {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(title)}</title></head><body><main><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`;
  return new Response(html, {
    status,
    headers: {
      "content-type": "text/html; charset=utf-8",
      // A page, unlike the rest of /api: its one form posts back here. The API's data policy
      // (form-action 'none', web/headers.ts) would stop the Confirm button in the browser.
      "content-security-policy":
        "default-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
      "cache-control": "no-store",
      "referrer-policy": "no-referrer",
      "x-robots-tag": "noindex",
    },
  });
}

function secretOrUnavailable(): string | Response {
  const { secret } = callbackConfig(env());
  return secret ?? page(503, "Callback links are not configured", "<p>Set CALLBACK_SECRET.</p>");
}

export async function GET(_request: Request, context: Context): Promise<Response> {
  const secret = secretOrUnavailable();
  if (typeof secret !== "string") return secret;
  const { token } = await context.params;
  const read = await readCallback(getPool(), secret, token);
  if (!read.ok) return page(404, "No such link", "<p>This link is not valid.</p>");
  if (read.value.used) return page(410, "Link already used", "<p>This link was used already.</p>");
  return page(
    200,
    "Confirm",
    `<p>Confirming sends <code>${escapeHtml(read.value.name)}</code> to the task waiting for it. It can be done once.</p><form method="post"><button type="submit">Confirm</button></form>`,
  );
}

export async function POST(_request: Request, context: Context): Promise<Response> {
  const secret = secretOrUnavailable();
  if (typeof secret !== "string") return secret;
  const { token } = await context.params;
  const used = await redeemCallback(getPool(), secret, token, env().EVENT_KEEP_MS);
  if (!used.ok) {
    return used.code === "not_found"
      ? page(404, "No such link", "<p>This link is not valid.</p>")
      : page(410, "Link already used", "<p>This link was used already.</p>");
  }
  return page(200, "Confirmed", "<p>Thank you: the task continues.</p>");
}
