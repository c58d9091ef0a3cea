// The few better-auth endpoints we expose; everything else it offers (sign-up, password reset
// by email, account linking, …) answers 404. Password sign-in goes through our own lock.
import { getAuth, trustedOrigins } from "../../../../lib/auth/auth";
import { problem } from "../../../../lib/auth/guard";
import { signInWithPassword } from "../../../../lib/auth/sign-in";

export const dynamic = "force-dynamic";

const PASS_THROUGH: Record<string, readonly string[]> = {
  GET: ["/oauth2/callback/sso"],
  POST: ["/sign-out", "/sign-in/oauth2"],
};

function subPath(request: Request): string {
  return new URL(request.url).pathname.replace(/^\/api\/auth/, "") || "/";
}

async function handle(request: Request): Promise<Response> {
  const path = subPath(request);
  if (request.method === "POST" && path === "/sign-in/email") {
    // Login CSRF: a browser posting from another site carries its Origin; scripts send none.
    const origin = request.headers.get("origin");
    if (origin && !trustedOrigins().includes(origin)) {
      return problem(403, "cross-origin", `Sign-in from ${origin} is not allowed`);
    }
    let body: unknown;
    try {
      body = await request.json();
    } catch {
      return problem(400, "invalid-body", 'The body must be JSON: {"email": …, "password": …}');
    }
    const result = await signInWithPassword(body, request.headers);
    if (!result.ok) {
      return problem(
        result.status,
        result.status === 429
          ? "sign-in-locked"
          : result.status === 400
            ? "invalid-input"
            : "sign-in-failed",
        result.message,
        undefined,
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
  return problem(404, "not-found", `No auth endpoint ${request.method} /api/auth${path}`);
}

export const GET = handle;
export const POST = handle;
