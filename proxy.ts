// Runs before every request but /api (see the matcher). Two jobs, neither of them a security boundary (every page, action
// and route handler checks the viewer itself): a per-request CSP nonce that Next applies to
// its own scripts, and an early redirect to sign-in for pages requested without a session
// cookie (saves rendering a page only to redirect). Server actions and /api answer for
// themselves; body caps, methods and Origins are the web gate's (web/gate.ts).
import { type NextRequest, NextResponse } from "next/server";
import { SESSION_COOKIES } from "./lib/auth/cookies";
import { env } from "./lib/env";

const PUBLIC_PAGES = ["/sign-in"];

function contentSecurityPolicy(nonce: string, dev: boolean, ssoOrigin: string | null): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${dev ? " 'unsafe-eval'" : ""}`,
    // React and Tailwind set style attributes; styles cannot run code.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    // A no-JS single sign-on form posts, then is redirected to the identity provider.
    `form-action 'self'${ssoOrigin ? ` ${ssoOrigin}` : ""}`,
    "frame-ancestors 'none'",
  ].join("; ");
}

export function proxy(request: NextRequest) {
  const { pathname, search } = request.nextUrl;
  const isApi = pathname === "/api" || pathname.startsWith("/api/");
  // A server action is a POST to a page's URL; it answers its own 401 (a redirect would hide it).
  const isAction = request.headers.has("next-action");
  if (
    !isApi &&
    !isAction &&
    !PUBLIC_PAGES.includes(pathname) &&
    !SESSION_COOKIES.some((name) => request.cookies.has(name))
  ) {
    const url = request.nextUrl.clone();
    url.pathname = "/sign-in";
    url.search = pathname === "/" ? "" : `?next=${encodeURIComponent(pathname + search)}`;
    return NextResponse.redirect(url);
  }
  const nonce = Buffer.from(crypto.randomUUID()).toString("base64");
  const config = env();
  const csp = contentSecurityPolicy(
    nonce,
    config.NODE_ENV === "development",
    config.OIDC_ISSUER ? new URL(config.OIDC_ISSUER).origin : null,
  );
  const requestHeaders = new Headers(request.headers);
  requestHeaders.set("x-nonce", nonce);
  requestHeaders.set("content-security-policy", csp);
  requestHeaders.set("x-agent-ledger-path", pathname + search);
  const response = NextResponse.next({ request: { headers: requestHeaders } });
  response.headers.set("content-security-policy", csp);
  return response;
}

export const config = {
  matcher: [
    {
      // Not /api: its routes answer for themselves, the web gate gives them a CSP, and a request
      // the proxy runs for has its body copied in memory first.
      source: "/((?!_next/static|_next/image|favicon.ico|api/).*)",
      missing: [
        { type: "header", key: "next-router-prefetch" },
        { type: "header", key: "purpose", value: "prefetch" },
      ],
    },
  ],
};
