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
