// The response headers every answer carries, whoever writes it: next.config.ts applies them to
// Next's responses, the web gate (web/server.ts) to the answers it gives before Next runs.
export const SECURITY_HEADERS: readonly { key: string; value: string }[] = [
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "Referrer-Policy", value: "same-origin" },
  { key: "Cross-Origin-Opener-Policy", value: "same-origin" },
  { key: "Permissions-Policy", value: "camera=(), microphone=(), geolocation=()" },
  { key: "X-Frame-Options", value: "DENY" },
];

/**
 * The policy of answers that are data, never a page (the gate's problems, /api): nothing may
 * load, run or frame. Pages get a per-request nonce policy from proxy.ts instead.
 */
export const DATA_CSP =
  "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/**
 * Whether an /api answer gets DATA_CSP from the server: all do but the callback links'
 * (ctx.callbackUrl), which answer with a page whose Confirm form posts back to itself and set
 * their own policy. Two policies would both apply, and DATA_CSP's form-action 'none' would win.
 */
export function takesDataCsp(pathname: string): boolean {
  return !pathname.startsWith("/api/v1/callbacks/");
}
