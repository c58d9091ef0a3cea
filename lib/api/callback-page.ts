// The standalone page a callback link (ctx.callbackUrl) answers with: opened by a customer from
// an email, so it cannot load the dashboard's CSS bundle. Its one stylesheet is inline and
// allowed by its hash alone; nothing may run, and the form may post only back to the link.
import { createHash } from "node:crypto";

/** Markup already escaped: what `html` returns, and the only thing it does not escape again. */
export type SafeHtml = { readonly html: string };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A template whose every interpolated value is escaped, unless it is `html` itself. */
export function html(strings: TemplateStringsArray, ...values: (string | SafeHtml)[]): SafeHtml {
  let out = strings[0] ?? "";
  values.forEach((value, i) => {
    out += typeof value === "string" ? escapeHtml(value) : value.html;
    out += strings[i + 1] ?? "";
  });
  return { html: out };
}

// Slate and sky, the dashboard's palette; each pair of text and background passes WCAG AA.
const STYLE = [
  ":root{color-scheme:light dark;--bg:#f1f5f9;--card:#fff;--text:#0f172a;--soft:#334155;--line:#e2e8f0;--code:#f1f5f9;--accent:#0369a1;--accent-hover:#075985;--on-accent:#fff}",
  "@media (prefers-color-scheme:dark){:root{--bg:#020617;--card:#0f172a;--text:#f1f5f9;--soft:#cbd5e1;--line:#1e293b;--code:#1e293b;--accent:#38bdf8;--accent-hover:#7dd3fc;--on-accent:#082f49}}",
  "*{box-sizing:border-box}",
  "body{margin:0;min-height:100vh;display:grid;place-items:center;padding:1.5rem;background:var(--bg);color:var(--text);font:16px/1.6 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif}",
  "main{width:100%;max-width:28rem;padding:2rem;background:var(--card);border:1px solid var(--line);border-radius:12px;box-shadow:0 1px 2px rgb(15 23 42/.06),0 8px 24px rgb(15 23 42/.08)}",
  "h1{margin:0 0 .75rem;font-size:1.5rem;line-height:1.25;letter-spacing:-.01em}",
  "p{margin:0 0 1rem;color:var(--soft)}",
  "p:last-child{margin-bottom:0}",
  "code{padding:.1em .35em;border-radius:4px;background:var(--code);color:var(--text);font:.875em ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;overflow-wrap:anywhere}",
  "form{margin:1.5rem 0 0}",
  "button{width:100%;padding:.75rem 1rem;border:0;border-radius:8px;background:var(--accent);color:var(--on-accent);font:inherit;font-weight:600;cursor:pointer}",
  "button:hover{background:var(--accent-hover)}",
  "button:focus-visible{outline:3px solid var(--accent);outline-offset:3px}",
].join("");

/** The CSP source that allows exactly STYLE, the page's one <style> element. */
export const STYLE_SOURCE = `'sha256-${createHash("sha256").update(STYLE).digest("base64")}'`;

export const CALLBACK_PAGE_CSP = [
  "default-src 'none'",
  "script-src 'none'",
  `style-src ${STYLE_SOURCE}`,
  "base-uri 'none'",
  // Its one form posts back here. The API's data policy (form-action 'none', web/headers.ts)
  // would stop the Confirm button in the browser, so the server leaves these links to this one.
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

export function callbackPage(status: number, title: string, body: SafeHtml): Response {
  const page = html`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="color-scheme" content="light dark"><title>${title}</title><style>${{ html: STYLE }}</style></head><body><main><h1>${title}</h1>${body}</main></body></html>`;
  return new Response(page.html, {
    status,
    headers: {
      "content-type": "text/html; charset=utf-8",
      "content-security-policy": CALLBACK_PAGE_CSP,
      "cache-control": "no-store",
      "referrer-policy": "no-referrer",
      "x-robots-tag": "noindex",
    },
  });
}
