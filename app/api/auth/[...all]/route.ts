// The few better-auth endpoints we expose; everything else it offers (sign-up, password reset
// by email, account linking, ID-token sign-in, …) answers 404. Password sign-in goes through our
// own lock; SSO sign-in accepts only where to land afterwards.
import { z } from "zod";
import { readCappedBody } from "../../../../lib/api/body";
import { SIGN_IN_MAX_BODY_BYTES } from "../../../../lib/api/limits";
import { ApiProblem, problem } from "../../../../lib/api/problems";
import { getAuth, OIDC_PROVIDER_ID, ssoEnabled, trustedOrigins } from "../../../../lib/auth/auth";
import { safeNext } from "../../../../lib/auth/page";
import { signInWithPassword } from "../../../../lib/auth/sign-in";

export const dynamic = "force-dynamic";

const PASS_THROUGH: Record<string, readonly string[]> = {
  GET: [`/callback/${OIDC_PROVIDER_ID}`],
  POST: ["/sign-out"],
};
const SSO_ONLY = new Set([`/callback/${OIDC_PROVIDER_ID}`, "/sign-in/social"]);

const ssoSignInBody = z
  .object({
    provider: z.literal(OIDC_PROVIDER_ID).optional(),
    callbackURL: z.string().max(2048).optional(),
  })
  .strict();

function subPath(request: Request): string {
  return new URL(request.url).pathname.replace(/^\/api\/auth/, "") || "/";
}

/** Login CSRF: a browser posting from another site carries its Origin; scripts send none. */
function crossOrigin(request: Request): Response | null {
  const origin = request.headers.get("origin");
  if (origin && !trustedOrigins().includes(origin)) {
    return problem("cross-origin", `Sign-in from ${origin} is not allowed`);
  }
  return null;
}

/** JSON of at most SIGN_IN_MAX_BODY_BYTES: a sign-in is never bigger, and nobody is known yet. */
async function readJson(
  request: Request,
): Promise<{ ok: true; body: unknown } | { ok: false; refused?: Response }> {
  let bytes: Uint8Array;
  try {
    bytes = await readCappedBody(request, SIGN_IN_MAX_BODY_BYTES);
  } catch (error) {
    if (error instanceof ApiProblem) return { ok: false, refused: error.toResponse() };
    return { ok: false };
  }
  try {
    return { ok: true, body: JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes)) };
  } catch {
    return { ok: false };
  }
}

/** Starts SSO: better-auth answers with the IdP's URL (also as Location) and a state cookie. */
async function ssoSignIn(request: Request): Promise<Response> {
  const read = await readJson(request);
  if (!read.ok && read.refused) return read.refused;
  const parsed = read.ok ? ssoSignInBody.safeParse(read.body ?? {}) : undefined;
  if (!parsed?.success) {
    return problem(
      "invalid-body",
      'The body must be JSON: {"provider": "sso", "callbackURL": "/a/path"}, both optional',
    );
  }
  const headers = new Headers(request.headers);
  headers.delete("content-length");
  headers.set("content-type", "application/json");
  return getAuth().handler(
    new Request(request.url, {
      method: "POST",
      headers,
      body: JSON.stringify({
        provider: OIDC_PROVIDER_ID,
        callbackURL: safeNext(parsed.data.callbackURL),
      }),
    }),
  );
}

async function handle(request: Request): Promise<Response> {
  const path = subPath(request);
  if (SSO_ONLY.has(path) && !ssoEnabled()) {
    return problem("not-found", "Single sign-on is not configured (OIDC_ISSUER is not set)");
  }
  if (request.method === "POST" && path === "/sign-in/social") {
    return crossOrigin(request) ?? ssoSignIn(request);
  }
  if (request.method === "POST" && path === "/sign-in/email") {
    const refused = crossOrigin(request);
    if (refused) return refused;
    const read = await readJson(request);
    if (!read.ok) {
      if (read.refused) return read.refused;
      return problem("invalid-body", 'The body must be JSON: {"email": …, "password": …}');
    }
    const result = await signInWithPassword(read.body, request.headers);
    if (!result.ok) {
      return problem(
        result.status === 429
          ? "sign-in-locked"
          : result.status === 400
            ? "invalid-input"
            : "sign-in-failed",
        result.message,
        undefined,
        result.retryAfterS ? { "retry-after": String(result.retryAfterS) } : undefined,
      );
    }
    const headers = new Headers({ "content-type": "application/json" });
    for (const cookie of result.headers.getSetCookie()) headers.append("set-cookie", cookie);
    return new Response(JSON.stringify({ ok: true, userId: result.userId }), {
      status: 200,
      headers,
    });
  }
  if (PASS_THROUGH[request.method]?.includes(path)) return getAuth().handler(request);
  return problem("not-found", `No auth endpoint ${request.method} /api/auth${path}`);
}

export const GET = handle;
export const POST = handle;
