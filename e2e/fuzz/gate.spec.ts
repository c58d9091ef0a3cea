// Property-based fuzzing of what reaches the web server before any handler: path encodings,
// methods, cursors at the edges of every type they carry, Origin look-alikes and bodies that are
// declared but never sent. Over HTTP against the built app; never a 5xx, and every refusal the
// gate gives is a problem+json with the security headers and a CSP.
import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { operator, SCOPES } from "../../lib/domain/access";
import { createApiToken } from "../../lib/server/commands/api-tokens";
import { DEMO_PASSWORD, DEMO_USERS } from "../../lib/server/commands/users";
import { type Answer, expectGateProblem, expectSecurityHeaders, ORIGIN, send } from "../abuse/http";
import { readActionEndpoints } from "../authz/calls";
import { unique } from "../authz/matrix-fixtures";
import { signInCookie } from "../authz/principals";
import { expect, test } from "../fixtures";

let bearer = "";
let cookie = "";
test.beforeAll(async ({ db }) => {
  const made = await createApiToken(db, operator("system:e2e-fuzz"), {
    name: unique("fuzz-gate"),
    scopes: [...SCOPES],
  });
  if (!made.ok) throw new Error(made.message);
  bearer = `Bearer ${made.value.token}`;
  const admin = DEMO_USERS.find((u) => u.role === "admin");
  if (!admin) throw new Error("no demo admin");
  cookie = await signInCookie(admin.email, DEMO_PASSWORD);
});

const credentialsFor = (path: string): Record<string, string> =>
  path.startsWith("/api/") ? { authorization: bearer } : { cookie };

/** Not a failure on the server; the security headers on whatever came back. */
function expectNoServerFailure(answer: Answer, what: string): void {
  expect(answer.status, `${what}: ${answer.body.slice(0, 200)}`).toBeLessThan(500);
  expectSecurityHeaders(answer);
  if (answer.headers["content-type"] === "application/problem+json") {
    expect(answer.headers["content-security-policy"], what).toBeTruthy();
  }
}

/** A path segment as bytes a client may put on the wire: percent escapes, valid or not. */
const segment = fc
  .array(
    fc.oneof(
      fc.stringMatching(/^[A-Za-z0-9._~!$&'()*+,;=:@-]{1,6}$/),
      fc.integer({ min: 0, max: 255 }).map((b) => `%${b.toString(16).padStart(2, "0")}`),
      fc.constantFrom("%", "%f", "%zz", "%ff%fe", "%ED%A0%80", "%C0%AF", "%00", "%2F", "%E2%80%AE"),
    ),
    { minLength: 1, maxLength: 5 },
  )
  .map((parts) => parts.join(""));

const TEMPLATES = [
  "/api/v1/tasks/{}",
  "/api/v1/tasks/{}/approve",
  "/api/v1/effects/{}",
  "/api/v1/{}",
  "/api/auth/{}",
  "/tasks/{}",
  "/why/{}",
  "/{}",
  "/_next/static/{}",
];

test("any percent-encoding in a path: a page, a 404 or a 400 problem, never a 5xx", async () => {
  test.setTimeout(120_000);
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...TEMPLATES), segment, async (template, seg) => {
      const path = template.replace("{}", seg);
      const answer = await send({ path, headers: credentialsFor(path) });
      expectNoServerFailure(answer, `GET ${path}`);
      let decodes = true;
      try {
        decodeURIComponent(path);
      } catch {
        decodes = false;
      }
      if (!decodes) expectGateProblem(answer, 400, "invalid-request");
    }),
    { numRuns: 80 },
  );
});

const METHODS = [
  "PUT",
  "DELETE",
  "PATCH",
  "TRACE",
  "OPTIONS",
  "PROPFIND",
  "PROPPATCH",
  "MKCOL",
  "COPY",
  "MOVE",
  "LOCK",
  "UNLOCK",
  "SEARCH",
  "REPORT",
  "MKACTIVITY",
  "CHECKOUT",
  "MERGE",
  "M-SEARCH",
  "NOTIFY",
  "SUBSCRIBE",
  "UNSUBSCRIBE",
  "PURGE",
  "LINK",
  "UNLINK",
  "QUERY",
  "SOURCE",
  "BIND",
  "REBIND",
  "UNBIND",
  "ACL",
];

test("any method but GET, HEAD and POST is a 405 problem with Allow, on any route", async () => {
  test.setTimeout(120_000);
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(...METHODS),
      fc.constantFrom("/", "/sign-in", "/tasks", "/api/v1/tasks", "/api/auth/sign-in/email"),
      fc.boolean(),
      async (method, path, signedIn) => {
        const answer = await send({
          method,
          path,
          headers: signedIn ? credentialsFor(path) : {},
        });
        expectGateProblem(answer, 405, "method-not-allowed");
        expect(answer.headers.allow).toBe("GET, HEAD, POST");
      },
    ),
    { numRuns: 60 },
  );
});

const b64 = (text: string) => Buffer.from(text, "utf8").toString("base64url");
const LAST_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** Numbers at and around the edges: 0, the year 9999, 2^31, 2^53, 2^63, 15 and 16 digits. */
const edgeInteger = fc.oneof(
  fc.constantFrom(
    0,
    1,
    LAST_MS,
    LAST_MS + 1,
    2 ** 31 - 1,
    2 ** 31,
    Number.MAX_SAFE_INTEGER,
    Number.MAX_SAFE_INTEGER + 1,
    999_999_999_999_999,
    8.64e15,
  ),
  fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
);
const edgeDigits = fc.oneof(
  edgeInteger.map((n) => BigInt(n).toString()),
  fc.constantFrom("9223372036854775807", "9223372036854775808", "18446744073709551616", "-1", "00"),
  fc.stringMatching(/^[0-9]{1,20}$/),
);

test("ledger and task cursors at the edges of their types: a page or a 400, never a 5xx", async () => {
  test.setTimeout(180_000);
  const ledgerCursor = fc.oneof(
    fc.tuple(edgeDigits, edgeDigits).map(([ms, id]) => b64(`${ms}.${id}`)),
    fc.string({ maxLength: 70 }).map(b64),
    fc.stringMatching(/^[A-Za-z0-9_=+/-]{0,70}$/),
  );
  const year = fc.oneof(
    fc.constantFrom(0, 1, 1969, 1970, 9999, 10000, 275760),
    fc.integer({ min: 0, max: 300_000 }),
  );
  const taskCursor = fc
    .record({
      year,
      month: fc.integer({ min: 0, max: 13 }),
      day: fc.integer({ min: 0, max: 32 }),
      hour: fc.integer({ min: 0, max: 25 }),
      micros: fc.integer({ min: 0, max: 999_999 }),
      id: fc.oneof(fc.uuid(), fc.constant("ffffffff-ffff-ffff-ffff-ffffffffffff")),
    })
    .map(({ year, month, day, hour, micros, id }) => {
      const p = (n: number, w = 2) => String(n).padStart(w, "0");
      return `${year > 9999 ? `+${year}` : p(year, 4)}-${p(month)}-${p(day)}T${p(hour)}:00:00.${p(micros, 6)}Z_${id}`;
    });
  const instant = fc.oneof(
    fc.constantFrom(
      "0000-01-01T00:00:00Z",
      "0001-01-01T00:00:00Z",
      "9999-12-31T23:59:59.999Z",
      "+275760-09-13T00:00:00.000Z",
      "-000001-01-01T00:00:00Z",
      "1970-01-01T00:00:00+14:00",
    ),
    fc
      .date({ min: new Date(-8.64e15), max: new Date(8.64e15), noInvalidDate: true })
      .map((d) => d.toISOString()),
  );
  const request = fc.oneof(
    ledgerCursor.map((c) => `/api/v1/ledger?cursor=${encodeURIComponent(c)}`),
    taskCursor.map((c) => `/api/v1/tasks?cursor=${encodeURIComponent(c)}`),
    edgeDigits.map((n) => `/api/v1/ledger?limit=${n}`),
    edgeDigits.map((n) => `/api/v1/tasks?limit=${n}`),
    fc
      .tuple(instant, instant)
      .map(
        ([from, to]) =>
          `/api/v1/ledger?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`,
      ),
    edgeDigits.map((n) => `/ledger?before=${n}`),
    taskCursor.map((c) => `/tasks?before=${encodeURIComponent(c)}`),
  );
  await fc.assert(
    fc.asyncProperty(request, async (path) => {
      const answer = await send({ path, headers: credentialsFor(path) });
      expectNoServerFailure(answer, `GET ${path}`);
      if (path.startsWith("/api/")) {
        expect([200, 400], `GET ${path}: ${answer.body.slice(0, 200)}`).toContain(answer.status);
        if (answer.status === 400) {
          expect(answer.headers["content-type"]).toBe("application/problem+json");
        }
      }
    }),
    { numRuns: 150 },
  );
});

/** Variations on the page's own origin that a browser could send or an attacker could craft. */
const lookAlike = fc.oneof(
  fc.constantFrom(
    `${ORIGIN}.evil.example`,
    `${ORIGIN}@evil.example`,
    `${ORIGIN}/`,
    `${ORIGIN}/x`,
    `${ORIGIN}:80`,
    ORIGIN.replace("http:", "HTTP:"),
    ORIGIN.replace("127.0.0.1", "127.0.0.01"),
    ORIGIN.replace("127.0.0.1", "0x7f.0.0.1"),
    ORIGIN.replace("127.0.0.1", "127.1"),
    ORIGIN.replace("127.0.0.1", "localhost"),
    ORIGIN.replace("127.0.0.1", "[::1]"),
    "null",
    "",
    " ",
    `${ORIGIN} `,
    `evil.example ${ORIGIN}`,
  ),
  fc
    .tuple(fc.stringMatching(/^[a-z0-9.@:/-]{0,12}$/), fc.stringMatching(/^[a-z0-9.@:/-]{0,12}$/))
    .map(([before, after]) => `${before}${ORIGIN}${after}`),
  fc.webUrl().map((u) => new URL(u).origin),
);

test("a server action from any Origin but the page's own is a 403 problem", async () => {
  test.setTimeout(120_000);
  const [action] = [...readActionEndpoints().values()].filter((e) => !e.route.includes("["));
  if (!action) throw new Error("the build serves no server action on a static page");
  await fc.assert(
    fc.asyncProperty(lookAlike, fc.boolean(), async (origin, multipart) => {
      const answer = await send({
        method: "POST",
        path: action.route,
        headers: {
          cookie,
          origin,
          "next-action": action.id,
          accept: "text/x-component",
          "content-type": multipart
            ? "multipart/form-data; boundary=x"
            : "text/plain;charset=UTF-8",
        },
        body: multipart
          ? '--x\r\nContent-Disposition: form-data; name="0"\r\n\r\n[]\r\n--x--\r\n'
          : "[]",
      });
      // HTTP strips spaces around a header value: " <origin> " arrives as the origin itself.
      if (origin.trim() === ORIGIN) expect(answer.status).toBe(200);
      else expectGateProblem(answer, 403, "cross-origin");
    }),
    { numRuns: 60, examples: [[ORIGIN, false]] },
  );
});

test("a body declared but never sent is answered at once: 401 with no credentials, 413 past the cap", async () => {
  test.setTimeout(120_000);
  const MiB = 1_048_576;
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(
        "/api/v1/tasks",
        `/api/v1/tasks/${randomUUID()}/approve`,
        "/api/v1/ledger",
        "/api/metrics",
        "/api/auth/sign-in/email",
        "/sign-in",
        "/tasks",
      ),
      fc.constantFrom("none", "token-shaped", "session"),
      fc.integer({ min: 2 * MiB, max: 2 ** 40 }),
      fc.boolean(),
      async (path, who, declared, sendSome) => {
        const headers: Record<string, string> = {
          "content-type": "application/json",
          "content-length": String(declared),
          ...(who === "token-shaped" ? { authorization: "Bearer not-a-token" } : {}),
          ...(who === "session" ? { cookie } : {}),
          ...(path.startsWith("/api/") ? {} : { origin: ORIGIN }),
        };
        const answer = await send({
          method: "POST",
          path,
          headers,
          // A few bytes, then silence; or only the head.
          body: sendSome ? { partial: '{"agent": "' } : "none",
        });
        const anonymousApi =
          who === "none" && path.startsWith("/api/") && !path.startsWith("/api/auth/");
        if (anonymousApi) expectGateProblem(answer, 401, "unauthenticated");
        else expectGateProblem(answer, 413, "payload-too-large");
      },
    ),
    { numRuns: 40 },
  );
});
