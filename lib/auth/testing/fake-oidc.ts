// A tiny OpenID Connect provider for tests: discovery, an /authorize that signs in whoever the
// test names without a login page, a /token that checks the client secret and the PKCE
// verifier, /userinfo and /jwks, with RS256 ID tokens signed by node:crypto. Loopback only.
import {
  createHash,
  generateKeyPairSync,
  type KeyObject,
  randomBytes,
  randomUUID,
  sign,
} from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type FakeOidcUser = {
  sub: string;
  email: string;
  name?: string;
  emailVerified?: boolean;
  /** Released under the groups claim; a string is sent as is (some IdPs send one group). */
  groups?: string[] | string;
};

/** Where the groups claim is released; many IdPs put it only in the userinfo response. */
export type GroupsIn = "id_token" | "userinfo" | "both";

export type FakeOidcOptions = {
  clientId: string;
  clientSecret: string;
  /** The claim that carries the groups (OIDC_GROUPS_CLAIM). */
  groupsClaim?: string;
};

export type AuthorizeRequest = Record<string, string>;

export type FakeOidc = {
  issuer: string;
  /** Who /authorize signs in next; null answers access_denied. */
  nextUser: FakeOidcUser | null;
  /** Where the groups claim goes; "id_token" unless a test changes it. */
  groupsIn: GroupsIn;
  /** Every /authorize query, oldest first, for assertions on what the client sent. */
  readonly authorizeRequests: AuthorizeRequest[];
  /** /token exchanges that succeeded and failed, with the error sent back. */
  readonly tokenResults: { ok: boolean; error?: string }[];
  /** How many /userinfo requests carried a valid access token. */
  userinfoCalls: number;
  close(): Promise<void>;
};

type PendingCode = {
  user: FakeOidcUser;
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  nonce: string | undefined;
  scope: string;
};

const base64url = (input: Buffer | string) => Buffer.from(input).toString("base64url");

function signJwt(privateKey: KeyObject, kid: string, claims: Record<string, unknown>): string {
  const head = base64url(JSON.stringify({ alg: "RS256", typ: "JWT", kid }));
  const body = base64url(JSON.stringify(claims));
  const signature = sign("sha256", Buffer.from(`${head}.${body}`), privateKey);
  return `${head}.${body}.${base64url(signature)}`;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" });
  res.end(JSON.stringify(body));
}

/** The client's credentials from HTTP Basic or the form body (client_secret_basic / _post). */
function clientCredentials(req: IncomingMessage, form: URLSearchParams) {
  const basic = /^Basic\s+(\S+)$/i.exec(req.headers.authorization ?? "");
  if (basic?.[1]) {
    const decoded = Buffer.from(basic[1], "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    return {
      id: decodeURIComponent(decoded.slice(0, colon)),
      secret: decodeURIComponent(decoded.slice(colon + 1)),
    };
  }
  return { id: form.get("client_id") ?? "", secret: form.get("client_secret") ?? "" };
}

export async function startFakeOidc(options: FakeOidcOptions): Promise<FakeOidc> {
  const groupsClaim = options.groupsClaim ?? "groups";
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const kid = randomUUID();
  const jwk = { ...publicKey.export({ format: "jwk" }), kid, alg: "RS256", use: "sig" };
  const codes = new Map<string, PendingCode>();
  const accessTokens = new Map<string, FakeOidcUser>();
  let issuer = "";

  const claimsOf = (user: FakeOidcUser, withGroups: boolean) => ({
    sub: user.sub,
    email: user.email,
    email_verified: user.emailVerified ?? true,
    ...(user.name ? { name: user.name } : {}),
    ...(withGroups && user.groups !== undefined ? { [groupsClaim]: user.groups } : {}),
  });

  const fake: FakeOidc = {
    issuer: "",
    nextUser: null,
    groupsIn: "id_token",
    authorizeRequests: [],
    tokenResults: [],
    userinfoCalls: 0,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };

  function authorize(url: URL, res: ServerResponse): void {
    const q = Object.fromEntries(url.searchParams);
    fake.authorizeRequests.push(q);
    const redirectUri = q.redirect_uri;
    if (!redirectUri || q.client_id !== options.clientId) {
      json(res, 400, { error: "invalid_request", error_description: "unknown client" });
      return;
    }
    const back = new URL(redirectUri);
    if (q.state) back.searchParams.set("state", q.state);
    back.searchParams.set("iss", issuer);
    const user = fake.nextUser;
    if (q.response_type !== "code" || !q.code_challenge || q.code_challenge_method !== "S256") {
      back.searchParams.set("error", "invalid_request");
    } else if (!user) {
      back.searchParams.set("error", "access_denied");
    } else {
      const code = base64url(randomBytes(24));
      codes.set(code, {
        user,
        clientId: q.client_id,
        redirectUri,
        codeChallenge: q.code_challenge,
        nonce: q.nonce,
        scope: q.scope ?? "",
      });
      back.searchParams.set("code", code);
    }
    res.writeHead(302, { location: back.toString() });
    res.end();
  }

  async function token(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const form = new URLSearchParams(await readBody(req));
    const fail = (status: number, error: string) => {
      fake.tokenResults.push({ ok: false, error });
      json(res, status, { error });
    };
    const client = clientCredentials(req, form);
    if (client.id !== options.clientId || client.secret !== options.clientSecret) {
      return fail(401, "invalid_client");
    }
    if (form.get("grant_type") !== "authorization_code") return fail(400, "unsupported_grant_type");
    const code = form.get("code") ?? "";
    const pending = codes.get(code);
    codes.delete(code); // single use, whatever happens next
    if (
      !pending ||
      pending.clientId !== client.id ||
      pending.redirectUri !== form.get("redirect_uri")
    ) {
      return fail(400, "invalid_grant");
    }
    const verifier = form.get("code_verifier") ?? "";
    if (base64url(createHash("sha256").update(verifier).digest()) !== pending.codeChallenge) {
      return fail(400, "invalid_grant");
    }
    const now = Math.floor(Date.now() / 1000);
    const idToken = signJwt(privateKey, kid, {
      iss: issuer,
      aud: options.clientId,
      iat: now,
      exp: now + 300,
      ...(pending.nonce ? { nonce: pending.nonce } : {}),
      ...claimsOf(pending.user, fake.groupsIn !== "userinfo"),
    });
    const accessToken = base64url(randomBytes(24));
    accessTokens.set(accessToken, pending.user);
    fake.tokenResults.push({ ok: true });
    json(res, 200, {
      access_token: accessToken,
      token_type: "Bearer",
      expires_in: 300,
      scope: pending.scope,
      id_token: idToken,
    });
  }

  function userinfo(req: IncomingMessage, res: ServerResponse): void {
    const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? "");
    const user = bearer?.[1] ? accessTokens.get(bearer[1]) : undefined;
    if (!user) {
      res.writeHead(401, { "www-authenticate": 'Bearer error="invalid_token"' });
      res.end();
      return;
    }
    fake.userinfoCalls++;
    json(res, 200, claimsOf(user, fake.groupsIn !== "id_token"));
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", issuer);
    const route = `${req.method} ${url.pathname}`;
    const handle = async () => {
      switch (route) {
        case "GET /.well-known/openid-configuration":
          return json(res, 200, {
            issuer,
            authorization_endpoint: `${issuer}/authorize`,
            token_endpoint: `${issuer}/token`,
            userinfo_endpoint: `${issuer}/userinfo`,
            jwks_uri: `${issuer}/jwks`,
            response_types_supported: ["code"],
            subject_types_supported: ["public"],
            id_token_signing_alg_values_supported: ["RS256"],
            code_challenge_methods_supported: ["S256"],
            token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
            scopes_supported: ["openid", "email", "profile"],
            claims_supported: ["sub", "email", "email_verified", "name", groupsClaim],
          });
        case "GET /authorize":
          return authorize(url, res);
        case "POST /token":
          return token(req, res);
        case "GET /userinfo":
          return userinfo(req, res);
        case "GET /jwks":
          return json(res, 200, { keys: [jwk] });
        default:
          return json(res, 404, { error: "not_found" });
      }
    };
    handle().catch((error: unknown) => json(res, 500, { error: String(error) }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.issuer = issuer;
  return fake;
}
