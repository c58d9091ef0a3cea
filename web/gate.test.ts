// The gate's rules from a request head alone (no server, no database): methods, request targets,
// percent-encoding, body caps and credentials, Origin look-alikes and the client address.
import type { IncomingHttpHeaders } from "node:http";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MAX_BODY_BYTES, SIGN_IN_MAX_BODY_BYTES } from "../lib/api/limits";
import { CLIENT_ADDRESS_HEADER, parseTrustedProxies } from "../lib/domain/client-address";
import {
  ACTION_MAX_BODY_BYTES,
  ANONYMOUS_ACTION_MAX_BODY_BYTES,
  admit,
  asksUpgrade,
  type GateRequest,
  sameOrigin,
} from "./gate";
import { multipartProblem } from "./multipart";

const HOST = "127.0.0.1:3410";
const ORIGIN = `http://${HOST}`;

function request(over: Partial<GateRequest> & { headers?: IncomingHttpHeaders } = {}): GateRequest {
  return {
    method: "GET",
    url: "/",
    remoteAddress: "127.0.0.1",
    trusted: null,
    ...over,
    headers: { host: HOST, ...over.headers },
  };
}

const refusal = (r: GateRequest) => {
  const verdict = admit(r);
  return verdict.ok ? null : verdict.refusal;
};

describe("methods", () => {
  it("serves GET, HEAD and POST and refuses every other method with 405 and Allow", () => {
    for (const method of ["GET", "HEAD", "POST"]) expect(refusal(request({ method }))).toBeNull();
    for (const method of ["TRACE", "OPTIONS", "PUT", "DELETE", "PATCH", "PROPFIND", "get", ""]) {
      expect(refusal(request({ method }))).toMatchObject({
        type: "method-not-allowed",
        headers: { allow: "GET, HEAD, POST" },
      });
    }
  });
});

describe("protocol upgrades", () => {
  it.each([
    ["Upgrade", "websocket"],
    ["keep-alive, Upgrade", "websocket"],
    ["upgrade", "WebSocket"],
    ["Upgrade, HTTP2-Settings", "h2c"],
  ])(
    "Connection: %s with Upgrade: %s is a 400 that closes the connection",
    (connection, upgrade) => {
      for (const method of ["GET", "HEAD", "POST"]) {
        expect(refusal(request({ method, headers: { connection, upgrade } }))).toMatchObject({
          type: "invalid-request",
          headers: { connection: "close" },
        });
      }
    },
  );

  it("is no upgrade unless Connection names it (Node parses it as an ordinary request)", () => {
    expect(refusal(request({ headers: { upgrade: "websocket" } }))).toBeNull();
    expect(refusal(request({ headers: { connection: "upgrade" } }))).toBeNull();
    expect(
      refusal(request({ headers: { connection: "upgrades", upgrade: "websocket" } })),
    ).toBeNull();
    expect(asksUpgrade({ connection: "Upgrade", upgrade: " " })).toBe(false);
  });
});

describe("request targets and percent-encoding", () => {
  it.each([
    "/api/v1/tasks/%ff%fe",
    "/api/v1/tasks/%E0%A4%A",
    "/tasks/%",
    "/%ED%A0%80",
    "/api/v1/tasks/%00",
    "/a%0Ab",
  ])("%s is a 400", (url) => {
    expect(refusal(request({ url }))?.type).toBe("invalid-request");
  });

  it.each(["*", "http://evil.example/", "//evil.example/x", ""])("target %j is a 400", (url) => {
    expect(refusal(request({ url }))?.type).toBe("invalid-request");
  });

  it("lets well-formed encodings through, and never judges the query string", () => {
    for (const url of ["/tasks/%E2%80%AEx", "/api/v1/why?key=%ff", "/caf%C3%A9", "/a%2Fb"]) {
      expect(refusal(request({ url }))).toBeNull();
    }
  });

  it("any path either passes or is a 400, never anything else", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.string(),
            fc.stringMatching(/^(%[0-9A-Fa-f]{0,2}|[a-z/])*$/),
            fc
              .uint8Array({ maxLength: 6 })
              .map((b) => [...b].map((x) => `%${x.toString(16)}`).join("")),
          ),
          { maxLength: 4 },
        ),
        (segments) => {
          const url = `/${segments.join("/")}`;
          const r = refusal(request({ url }));
          expect(r === null || r.type === "invalid-request").toBe(true);
        },
      ),
    );
  });
});

describe("bodies", () => {
  const post = (url: string, headers: IncomingHttpHeaders) =>
    request({ method: "POST", url, headers });

  it("refuses a body to /api from someone with no credentials before reading it", () => {
    for (const headers of [{ "content-length": "20000000" }, { "transfer-encoding": "chunked" }]) {
      expect(refusal(post("/api/v1/tasks", headers))?.type).toBe("unauthenticated");
    }
    // Sign-in is how credentials are made: capped, not refused.
    expect(refusal(post("/api/auth/sign-in/email", { "content-length": "100" }))).toBeNull();
    // No body: the route answers for itself.
    expect(refusal(post("/api/v1/tasks", {}))).toBeNull();
  });

  it("refuses a declared Content-Length over the route's cap with 413", () => {
    const bearer = { authorization: "Bearer x" };
    const cases: [string, IncomingHttpHeaders, number][] = [
      ["/api/v1/tasks", bearer, MAX_BODY_BYTES],
      ["/api/auth/sign-in/email", {}, SIGN_IN_MAX_BODY_BYTES],
      ["/tasks", { cookie: "agent-ledger.session_token=abc" }, ACTION_MAX_BODY_BYTES],
      ["/sign-in", {}, ANONYMOUS_ACTION_MAX_BODY_BYTES],
    ];
    for (const [url, headers, cap] of cases) {
      expect(refusal(post(url, { ...headers, "content-length": String(cap) }))).toBeNull();
      expect(refusal(post(url, { ...headers, "content-length": String(cap + 1) }))?.type).toBe(
        "payload-too-large",
      );
      const verdict = admit(post(url, { ...headers, "transfer-encoding": "chunked" }));
      expect(verdict.ok && verdict.admission.bodyCap).toBe(cap);
    }
  });

  it("counts only a session cookie as credentials, not any cookie", () => {
    const headers = { cookie: "theme=dark; agent-ledger.session_token_x=1", "content-length": "5" };
    expect(refusal(post("/api/v1/tasks", headers))?.type).toBe("unauthenticated");
    const secure = { cookie: "a=b; __Secure-agent-ledger.session_token=t", "content-length": "5" };
    expect(refusal(post("/api/v1/tasks", secure))).toBeNull();
  });
});

describe("Origin of a POST to a page (a server action or a form)", () => {
  const action = (origin: string) =>
    refusal(request({ method: "POST", url: "/tasks", headers: { origin, "next-action": "1" } }));

  it.each([
    `${ORIGIN}.evil.example`,
    "http://127.0.0.1:3410.evil.example:80",
    "http://127.0.0.1:34100",
    "http://127.0.0.1",
    "http://localhost:3410",
    "http://evil.example",
    "null",
    `${ORIGIN}/`,
    `${ORIGIN}/path`,
    `http://user@${HOST}`,
    ` ${ORIGIN}`,
    "",
    "http://127.0.0.1:3410@evil.example",
    "file://",
    "javascript:alert(1)",
  ])("%j is refused", (origin) => {
    expect(action(origin)?.type).toBe("cross-origin");
  });

  it("the page's own origin passes, and so does no Origin at all (not a browser)", () => {
    expect(action(ORIGIN)).toBeNull();
    expect(refusal(request({ method: "POST", url: "/tasks" }))).toBeNull();
  });

  it("any origin other than the exact one is refused", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.webUrl(),
          fc.string(),
          fc.constantFrom(ORIGIN).map((o) => `${o}x`),
        ),
        (origin) => {
          fc.pre(origin !== ORIGIN);
          expect(sameOrigin(origin, HOST)).toBe(false);
        },
      ),
    );
  });

  it("believes X-Forwarded-Host only from a trusted proxy", () => {
    const headers = { origin: "https://ledger.example", "x-forwarded-host": "ledger.example" };
    const post = (trusted: GateRequest["trusted"]) =>
      refusal(request({ method: "POST", url: "/tasks", headers, trusted }));
    expect(post(null)?.type).toBe("cross-origin");
    expect(post(parseTrustedProxies("127.0.0.1"))).toBeNull();
  });
});

describe("the client address", () => {
  it("comes from the socket; a client's own header and X-Forwarded-For are dropped", () => {
    const verdict = admit(
      request({
        remoteAddress: "::ffff:203.0.113.9",
        headers: {
          [CLIENT_ADDRESS_HEADER]: "6.6.6.6",
          "x-forwarded-for": "6.6.6.6",
          "x-middleware-subrequest": "proxy",
        },
      }),
    );
    if (!verdict.ok) throw new Error("refused");
    expect(verdict.admission.clientAddress).toBe("203.0.113.9");
    expect(verdict.admission.drop).toEqual(
      expect.arrayContaining([CLIENT_ADDRESS_HEADER, "x-forwarded-for", "x-middleware-subrequest"]),
    );
  });

  it("comes from X-Forwarded-For when the socket is a trusted proxy", () => {
    const verdict = admit(
      request({
        remoteAddress: "10.0.0.2",
        trusted: parseTrustedProxies("10.0.0.0/8"),
        headers: { "x-forwarded-for": "6.6.6.6, 198.51.100.7" },
      }),
    );
    if (!verdict.ok) throw new Error("refused");
    expect(verdict.admission.clientAddress).toBe("198.51.100.7");
    expect(verdict.admission.drop).not.toContain("x-forwarded-for");
  });
});

describe("multipart part headers", () => {
  const form = (name: string) =>
    Buffer.from(
      `--b\r\nContent-Disposition: form-data; name="${name}"\r\n\r\nvalue\r\n--b--\r\n`,
      "utf8",
    );
  it("refuses a field name with NUL, and a body that is not a form", () => {
    expect(multipartProblem("multipart/form-data; boundary=b", form("a\u0000b"))).toMatch(/NUL/);
    expect(multipartProblem("multipart/form-data", form("a"))).toMatch(/boundary/);
    expect(multipartProblem("multipart/form-data; boundary=b", Buffer.from("x"))).toMatch(/part/);
  });
  it("passes a well-formed form, whatever its values hold", () => {
    const withNulValue = Buffer.concat([
      form("a").subarray(0, -12),
      Buffer.from("\0\r\n--b--\r\n"),
    ]);
    expect(multipartProblem('multipart/form-data; boundary="b"', form("a"))).toBeNull();
    expect(multipartProblem("multipart/form-data; boundary=b", withNulValue)).toBeNull();
  });
});
