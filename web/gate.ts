// What the web server decides about a request from its head alone, before any body is read and
// before Next runs: the method, the request target, whether a body may come and how big, whether
// anyone could be behind it, a server action's Origin, and which address it comes from. Pure, so
// every rule is tested without a server (web/gate.test.ts).
import type { IncomingHttpHeaders } from "node:http";
import { isIP } from "node:net";
import { MAX_BODY_BYTES, SIGN_IN_MAX_BODY_BYTES } from "../lib/api/limits";
import type { ProblemType } from "../lib/api/problems";
import { SESSION_COOKIES } from "../lib/auth/cookies";
import {
  CLIENT_ADDRESS_HEADER,
  clientAddress,
  type TrustedProxies,
} from "../lib/domain/client-address";

/** Nothing here answers any other method; Next would 500 on some (TRACE). */
export const ALLOWED_METHODS = ["GET", "HEAD", "POST"] as const;
/** A server action's body: Next's own serverActions.bodySizeLimit default (1 MB). */
export const ACTION_MAX_BODY_BYTES = 1_048_576;
/** A POST to a page from someone without a session: only the sign-in form does that. */
export const ANONYMOUS_ACTION_MAX_BODY_BYTES = 16_384;

/** Request headers only the server itself may set; whatever a client sends under them goes. */
const INTERNAL_HEADER = /^(x-agent-ledger-|x-middleware-|x-nonce$|x-invoke-|x-next-)/;
/** Believed only from a proxy in TRUSTED_PROXIES. */
const FORWARDING_HEADERS = [
  "x-forwarded-for",
  "x-forwarded-host",
  "x-forwarded-proto",
  "x-forwarded-port",
  "forwarded",
  "x-real-ip",
];

export type GateRequest = {
  method: string | undefined;
  url: string | undefined;
  headers: IncomingHttpHeaders;
  remoteAddress: string | undefined;
  trusted: TrustedProxies | null;
};

export type Refusal = {
  type: ProblemType;
  detail: string;
  headers?: Record<string, string>;
};

export type Admission = {
  pathname: string;
  /** An /api route: answers are data (the strict CSP), never a page. */
  api: boolean;
  /** A body is declared (Content-Length above 0, or chunked). */
  hasBody: boolean;
  bodyCap: number;
  /** A multipart body to a page: its part headers are checked once read. */
  multipartAction: boolean;
  /** Header names to delete, then the client address to set. */
  drop: string[];
  clientAddress: string | null;
};

export type Verdict = { ok: true; admission: Admission } | { ok: false; refusal: Refusal };

const refuse = (type: ProblemType, detail: string, headers?: Record<string, string>): Verdict => ({
  ok: false,
  refusal: { type, detail, headers },
});

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(",") : value;
}

/** An Authorization header or a session cookie: someone may be signed in. */
export function carriesCredentials(headers: IncomingHttpHeaders): boolean {
  if (headers.authorization?.trim()) return true;
  const names = (headers.cookie ?? "").split(";").map((pair) => pair.split("=")[0]?.trim());
  return SESSION_COOKIES.some((name) => names.includes(name));
}

/**
 * The path decoded segment by segment, or why it cannot be: malformed percent-encoding, bytes
 * that are not UTF-8, or control characters (NUL reaches PostgreSQL as an error).
 */
export function decodePath(pathname: string): { ok: true } | { ok: false; detail: string } {
  for (const segment of pathname.split("/")) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      return { ok: false, detail: "the path is not valid percent-encoded UTF-8" };
    }
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are the point
    if (/[\u0000-\u001f\u007f]/.test(decoded)) {
      return { ok: false, detail: "the path holds a control character" };
    }
  }
  return { ok: true };
}

/**
 * Whether a browser's Origin names this very host: parsed as a URL (a look-alike such as
 * http://host:port.evil.example does not parse, or names another host) and compared exactly,
 * as Next compares it before running a server action.
 */
export function sameOrigin(origin: string, host: string | undefined): boolean {
  if (!host) return false;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return false;
  // "null", a path, user info or a trailing dot or slash do not serialize back unchanged.
  if (url.origin !== origin) return false;
  // The scheme is not compared (as Next does not): behind a TLS proxy the server cannot tell it,
  // and one host and port serve one site either way.
  return url.host === host.toLowerCase();
}

/**
 * Whether the client asks to switch protocols (a WebSocket handshake, h2c): an Upgrade header
 * that Connection names, as Node's parser reads it. Nothing here switches protocols, and after
 * such a head Node stops parsing the connection as HTTP, so the answer must close it.
 */
export function asksUpgrade(headers: IncomingHttpHeaders): boolean {
  if (!headers.upgrade?.trim()) return false;
  return (headers.connection ?? "")
    .split(",")
    .some((token) => token.trim().toLowerCase() === "upgrade");
}

function bodyCapOf(pathname: string, credentials: boolean): number {
  if (pathname.startsWith("/api/auth/")) return SIGN_IN_MAX_BODY_BYTES;
  if (pathname.startsWith("/api/")) return MAX_BODY_BYTES;
  return credentials ? ACTION_MAX_BODY_BYTES : ANONYMOUS_ACTION_MAX_BODY_BYTES;
}

function peerIsTrusted(request: GateRequest): boolean {
  if (!request.trusted) return false;
  const peer = clientAddress(request.remoteAddress, undefined, null);
  const family = peer ? isIP(peer) : 0;
  return (
    peer !== null && family !== 0 && request.trusted.check(peer, family === 4 ? "ipv4" : "ipv6")
  );
}

export function admit(request: GateRequest): Verdict {
  const method = request.method ?? "";
  if (!(ALLOWED_METHODS as readonly string[]).includes(method)) {
    return refuse("method-not-allowed", `${method || "this method"} is not served here`, {
      allow: ALLOWED_METHODS.join(", "),
    });
  }
  if (asksUpgrade(request.headers)) {
    return refuse(
      "invalid-request",
      "no WebSocket or other protocol upgrade is served here; send the request without Upgrade",
      { connection: "close" },
    );
  }
  const target = request.url ?? "";
  // Origin-form only: "*", an absolute URL or "//host" are for proxies, not for this server.
  if (!target.startsWith("/") || target.startsWith("//")) {
    return refuse("invalid-request", "the request target must be a path starting with one /");
  }
  const pathname = target.split(/[?#]/, 1)[0] ?? "/";
  const decoded = decodePath(pathname);
  if (!decoded.ok) return refuse("invalid-request", decoded.detail);

  const { headers } = request;
  const api = pathname === "/api" || pathname.startsWith("/api/");
  const signIn = pathname.startsWith("/api/auth/");
  const credentials = carriesCredentials(headers);
  const declared = headers["content-length"];
  const hasBody = headers["transfer-encoding"] !== undefined || Number(declared ?? "0") > 0;
  const bodyCap = bodyCapOf(pathname, credentials);
  if (hasBody && api && !signIn && !credentials) {
    return refuse(
      "unauthenticated",
      "send an API token (Authorization: Bearer …) or sign in; the body was not read",
    );
  }
  if (hasBody && Number(declared ?? "0") > bodyCap) {
    return refuse("payload-too-large", `at most ${bodyCap} bytes here`);
  }

  const trustedPeer = peerIsTrusted(request);
  const drop = Object.keys(headers).filter(
    (name) => INTERNAL_HEADER.test(name) || (!trustedPeer && FORWARDING_HEADERS.includes(name)),
  );
  if (!drop.includes(CLIENT_ADDRESS_HEADER)) drop.push(CLIENT_ADDRESS_HEADER);

  if (method === "POST" && !api && headers.origin !== undefined) {
    const forwardedHost = trustedPeer
      ? single(headers["x-forwarded-host"])?.split(",")[0]?.trim()
      : undefined;
    if (!sameOrigin(headers.origin, forwardedHost || headers.host)) {
      return refuse("cross-origin", "a form or action posted from another origin is refused");
    }
  }

  const contentType = headers["content-type"] ?? "";
  return {
    ok: true,
    admission: {
      pathname,
      api,
      hasBody,
      bodyCap,
      multipartAction: !api && /^multipart\/form-data/i.test(contentType),
      drop,
      clientAddress: clientAddress(
        request.remoteAddress,
        single(headers["x-forwarded-for"]),
        request.trusted,
      ),
    },
  };
}
