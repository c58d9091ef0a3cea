// Each abuse case the web gate answers, over HTTP against the built app: every answer is a 4xx
// problem+json with the security headers and a CSP, never a 500 and never Next's plain text.
import { operator, SCOPES } from "../../lib/domain/access";
import { createApiToken } from "../../lib/server/commands/api-tokens";
import { DEMO_PASSWORD, DEMO_USERS } from "../../lib/server/commands/users";
import { readActionEndpoints } from "../authz/calls";
import { unique } from "../authz/matrix-fixtures";
import { signInCookie } from "../authz/principals";
import { expect, test } from "../fixtures";
import { type Answer, expectGateProblem, ORIGIN, raw, send } from "./http";

const JSON_TYPE = { "content-type": "application/json" };
/** Anything in Authorization counts as credentials to the gate; Next checks it afterwards. */
const SOME_TOKEN = { authorization: "Bearer not-a-real-token" };
const MiB = 1_048_576;

let token = "";
let cookie = "";
test.beforeAll(async ({ db }) => {
  const made = await createApiToken(db, operator("system:e2e-abuse"), {
    name: unique("abuse"),
    scopes: [...SCOPES],
  });
  if (!made.ok) throw new Error(made.message);
  token = made.value.token;
  const admin = DEMO_USERS.find((u) => u.role === "admin");
  if (!admin) throw new Error("no demo admin");
  cookie = await signInCookie(admin.email, DEMO_PASSWORD);
});

/** Any server action the build serves, and the page it is posted to. */
function anAction(): { id: string; path: string } {
  const [endpoint] = [...readActionEndpoints().values()].filter((e) => !e.route.includes("["));
  if (!endpoint) throw new Error("the build serves no server action on a static page");
  return { id: endpoint.id, path: endpoint.route };
}

test("an unknown method is a 405 problem with Allow, on pages, the API and static files", async () => {
  for (const method of ["TRACE", "PUT", "DELETE", "PATCH", "OPTIONS", "PROPFIND", "PURGE"]) {
    for (const path of ["/", "/sign-in", "/api/v1/tasks", "/api/health", "/_next/static/x.js"]) {
      const answer = await send({ method, path });
      expectGateProblem(answer, 405, "method-not-allowed");
      expect(answer.headers.allow).toBe("GET, HEAD, POST");
    }
  }
  const connect = await raw(`CONNECT ${ORIGIN.slice(7)} HTTP/1.1\r\nHost: x\r\n\r\n`);
  expect(connect).toMatch(/^HTTP\/1\.1 405 /);
  expect(connect.toLowerCase()).toContain("x-content-type-options: nosniff");
});

test("malformed percent-encoding in a path is a 400 problem, on the API and on pages", async () => {
  for (const path of [
    "/api/v1/tasks/%ff%fe",
    "/api/v1/effects/%ED%A0%80",
    "/tasks/%E0%A4%A",
    "/ledger/%",
    "/api/v1/tasks/%00",
  ]) {
    expectGateProblem(await send({ path, headers: { cookie } }), 400, "invalid-request");
  }
});

test("ledger cursors PostgreSQL cannot take are a 400 problem, not its error", async () => {
  const b64 = (t: string) => Buffer.from(t).toString("base64url");
  for (const cursor of [
    "OTk5OTk5OTk5OTk5OTk5LjE",
    b64(`${Date.UTC(9999, 11, 31, 23, 59, 59, 999) + 1}.1`),
    b64(`1.${Number.MAX_SAFE_INTEGER + 1}`),
  ]) {
    const answer = await send({
      path: `/api/v1/ledger?cursor=${cursor}`,
      headers: { authorization: `Bearer ${token}` },
    });
    expectGateProblem(answer, 400, "invalid-request");
  }
  const edge = await send({
    path: `/api/v1/ledger?cursor=${b64(`${Date.UTC(9999, 11, 31, 23, 59, 59, 999)}.1`)}`,
    headers: { authorization: `Bearer ${token}` },
  });
  expect(edge.status).toBe(200);
});

test("a server action from another origin or a look-alike is a 403 problem", async () => {
  const action = anAction();
  const post = (origin: string) =>
    send({
      method: "POST",
      path: action.path,
      headers: {
        cookie,
        origin,
        "next-action": action.id,
        accept: "text/x-component",
        "content-type": "text/plain;charset=UTF-8",
      },
      body: "[]",
    });
  for (const origin of [
    `${ORIGIN}.evil.example`,
    "http://evil.example",
    "null",
    `${ORIGIN}@evil.example`,
    `${ORIGIN}/`,
  ]) {
    expectGateProblem(await post(origin), 403, "cross-origin");
  }
  // The same call from the page's own origin reaches the action.
  const own = await post(ORIGIN);
  expect(own.status).toBe(200);
  expect(own.headers["content-type"]).toContain("text/x-component");
});

test("a server-action body over 1 MiB is a 413 problem, declared or streamed", async () => {
  const action = anAction();
  const headers = {
    cookie,
    origin: ORIGIN,
    "next-action": action.id,
    "content-type": "text/plain;charset=UTF-8",
  };
  const big = Buffer.alloc(MiB + 100, "x");
  expectGateProblem(
    await send({ method: "POST", path: action.path, headers, body: big }),
    413,
    "payload-too-large",
  );
  expectGateProblem(
    await send({
      method: "POST",
      path: action.path,
      headers: { ...headers, "transfer-encoding": "chunked" },
      body: big,
    }),
    413,
    "payload-too-large",
  );
});

test("a multipart field name with NUL is a 400 problem, not Next's 500", async () => {
  const action = anAction();
  const form = `--x\r\nContent-Disposition: form-data; name="1_a\u0000b"\r\n\r\nv\r\n--x\r\nContent-Disposition: form-data; name="0"\r\n\r\n["$K1"]\r\n--x--\r\n`;
  const answer = await send({
    method: "POST",
    path: action.path,
    headers: {
      cookie,
      origin: ORIGIN,
      "next-action": action.id,
      "content-type": "multipart/form-data; boundary=x",
    },
    body: form,
  });
  expectGateProblem(answer, 400, "invalid-request");
});

test("a body to the API from nobody is a 401 before it is sent, and its connection is closed", async () => {
  const answer = await send({
    method: "POST",
    path: "/api/v1/tasks",
    headers: { ...JSON_TYPE, "content-length": String(20 * MiB) },
    body: "none",
  });
  expectGateProblem(answer, 401, "unauthenticated");
  // Declared 20 MiB, sent nothing: the server answers and then hangs up instead of waiting.
  const closed = await raw(
    "POST /api/v1/tasks HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 20971520\r\n\r\n",
  );
  expect(closed).toMatch(/^HTTP\/1\.1 401 /);
});

test("a body past its route's cap is a 413, declared up front or cut as it streams", async () => {
  const declared = await send({
    method: "POST",
    path: "/api/v1/tasks",
    headers: { ...SOME_TOKEN, ...JSON_TYPE, "content-length": String(20 * MiB) },
    body: "none",
  });
  expectGateProblem(declared, 413, "payload-too-large");
  const streamed = await send({
    method: "POST",
    path: "/api/v1/tasks",
    headers: { ...SOME_TOKEN, ...JSON_TYPE, "transfer-encoding": "chunked" },
    body: Buffer.alloc(3 * MiB, " "),
  });
  expectGateProblem(streamed, 413, "payload-too-large");
});

test("sign-in bodies are capped at a few KB, declared or streamed", async () => {
  const big = JSON.stringify({ email: "a@example.com", password: "p".repeat(10_000) });
  const framings: Record<string, string>[] = [{}, { "transfer-encoding": "chunked" }];
  for (const extra of framings) {
    const answer: Answer = await send({
      method: "POST",
      path: "/api/auth/sign-in/email",
      headers: { ...JSON_TYPE, ...extra },
      body: big,
    });
    expectGateProblem(answer, 413, "payload-too-large");
  }
});

test("a body that stops arriving is cut with a 408 problem", async () => {
  const answer = await send({
    method: "POST",
    path: "/api/v1/tasks",
    headers: { ...SOME_TOKEN, ...JSON_TYPE, "content-length": "100" },
    body: "none",
  });
  expectGateProblem(answer, 408, "request-timeout");
});

test("request headers that never end are cut with a 408 problem", async () => {
  const answer = await raw("GET /api/health HTTP/1.1\r\nHost: x\r\nX-Slow: 1\r\n");
  expect(answer).toMatch(/^HTTP\/1\.1 408 /);
  expect(answer).toContain("application/problem+json");
  expect(answer.toLowerCase()).toContain("x-content-type-options: nosniff");
});
