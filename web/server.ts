// The web server: a Node http server whose gate (web/gate.ts) answers every request that must
// not reach Next — an unknown method, a malformed path, a protocol Upgrade, a body too big, a
// body with nobody behind it, a cross-origin action, a body that stops arriving — as a problem
// with the security headers, then hands the rest to Next's request handler with the client
// address set from the socket. No connection outlives its timeouts: a head in 10 s, a request
// in 60 s, 5 s idle between requests, 60 s with nothing moving either way, 2 s after a raw
// answer. Started by `npm start` and the e2e server in place of `next start`, and bundled as the
// built dashboard's server.js (scripts/build-dashboard.ts) run by plain node; stops on SIGTERM.
import { randomUUID } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import {
  createServer,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type ServerResponse,
  STATUS_CODES,
} from "node:http";
import path from "node:path";
import type { Duplex } from "node:stream";
import { fileURLToPath } from "node:url";
import { createPool } from "../db/client";
import { SchemaVersionError } from "../db/schema-version";
import { problemBody } from "../lib/api/problems";
import { CLIENT_ADDRESS_HEADER, parseTrustedProxies } from "../lib/domain/client-address";
import { env } from "../lib/env";
import { errorFields, type Logger, logger } from "../lib/log";
import { type BulkRunner, startBulkRunner } from "../lib/server/commands/bulk-run";
import { startTracing } from "../lib/server/tracing";
import { startWebAlerts, type WebAlerts } from "../worker/alerts/web-alerts";
import { readBody, replay } from "./body";
import { ALLOWED_METHODS, admit, type Refusal } from "./gate";
import { DATA_CSP, SECURITY_HEADERS, takesDataCsp } from "./headers";
import { multipartProblem } from "./multipart";
import { checkDashboardSchema } from "./schema-check";

/** All request headers must arrive within this. */
const HEADERS_TIMEOUT_MS = 10_000;
/** The whole request, body included (bodies are at most 1 MiB). */
const REQUEST_TIMEOUT_MS = 60_000;
/** A body that sends nothing for this long is cut (408). */
const BODY_IDLE_MS = 10_000;
/**
 * After refusing a body still arriving, or answering on a socket Node no longer parses, how long
 * the client may go on sending (and take to read the answer) before the socket is closed.
 */
const LINGER_MS = 2_000;
/**
 * A connection on which nothing moves either way for this long is closed: a client that stops
 * reading an answer would otherwise hold its socket (and the answer) for as long as it likes.
 */
const IDLE_MS = 60_000;
/** How long in-flight requests may finish after SIGTERM. */
const STOP_GRACE_MS = 3_000;

const HERE = fileURLToPath(new URL(".", import.meta.url));
/**
 * The folder whose .next this server serves: bundled as the built dashboard's server.js, its own
 * folder (the build is beside it); run from this checkout's web/, the checkout.
 */
const BUILT = existsSync(path.join(HERE, ".next", "required-server-files.json"));
const ROOT = BUILT ? HERE : path.dirname(HERE);

function gateHeaders(requestId: string, extra: Record<string, string> = {}): OutgoingHttpHeaders {
  return {
    ...Object.fromEntries(SECURITY_HEADERS.map(({ key, value }) => [key, value])),
    "content-security-policy": DATA_CSP,
    "content-type": "application/problem+json",
    "cache-control": "no-store",
    "x-request-id": requestId,
    ...extra,
  };
}

function answer(res: ServerResponse, requestId: string, refusal: Refusal, close = false): void {
  const body = JSON.stringify(problemBody(refusal.type, refusal.detail));
  res.writeHead(problemBody(refusal.type).status, {
    ...gateHeaders(requestId, refusal.headers),
    "content-length": Buffer.byteLength(body),
    ...(close ? { connection: "close" } : {}),
  });
  res.end(body);
}

/**
 * A refusal while the body may still be arriving. Closing at once would reset a client still
 * sending, and it could lose the answer unread: so the answer goes out, the server half-closes,
 * drains (and drops) what still comes for a moment, then closes.
 */
function refuseBody(req: IncomingMessage, res: ServerResponse, id: string, refusal: Refusal) {
  if (req.complete) {
    answer(res, id, refusal);
    return;
  }
  // Node would close right after the answer (the client said Connection: close): we close later.
  res.shouldKeepAlive = true;
  res.once("finish", () => req.socket.end());
  const timer = setTimeout(() => req.socket.destroy(), LINGER_MS);
  timer.unref();
  req.socket.once("close", () => clearTimeout(timer));
  answer(res, id, refusal);
  req.resume();
}

/** Drops the headers a client may not set, then sets the client address from the socket. */
function rewriteHeaders(req: IncomingMessage, drop: string[], address: string | null): void {
  for (const name of drop) delete req.headers[name];
  const raw: string[] = [];
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i] as string;
    if (!drop.includes(name.toLowerCase())) raw.push(name, req.rawHeaders[i + 1] as string);
  }
  if (address) {
    req.headers[CLIENT_ADDRESS_HEADER] = address;
    raw.push(CLIENT_ADDRESS_HEADER, address);
  }
  req.rawHeaders = raw;
}

/**
 * An answer written straight to a socket Node no longer parses as HTTP (CONNECT, bytes that are
 * not HTTP). Such a socket is outside every timeout of the server, so this closes it: the answer
 * goes out, whatever still arrives is read and dropped (so the client's hang-up is seen, not left
 * in CLOSE-WAIT), and a client that neither reads nor hangs up is cut after LINGER_MS.
 */
function endRaw(socket: Duplex, answer: string): void {
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.once("close", () => clearTimeout(timer));
  socket.on("error", () => socket.destroy());
  socket.end(answer);
  socket.resume();
}

/** An answer for the bytes Node could not parse as HTTP, written straight to the socket. */
function rawProblem(refusal: Refusal, status: number): string {
  const body = JSON.stringify(problemBody(refusal.type, refusal.detail));
  const extra: Record<string, string> = status === 405 ? { allow: ALLOWED_METHODS.join(", ") } : {};
  const head = Object.entries(gateHeaders(randomUUID(), extra))
    .map(([name, value]) => `${name}: ${String(value)}`)
    .join("\r\n");
  return `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? "Bad Request"}\r\n${head}\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`;
}

/**
 * The evaluator and an alert-delivery worker on a pool of their own (requests never wait on
 * them), unless ALERTS_IN_WEB=false. Alerts are not the web server's reason to exist: if they
 * cannot start, the dashboard still serves, and says why in the log.
 */
async function startAlerts(config: ReturnType<typeof env>, log: Logger): Promise<WebAlerts | null> {
  if (!config.ALERTS_IN_WEB || !config.DATABASE_URL) return null;
  const pool = createPool(config.DATABASE_URL, {
    max: 4,
    applicationName: "agent-ledger-web-alerts",
    log: logger("db"),
  });
  try {
    const alerts = await startWebAlerts({
      pool,
      logger: logger("web-alerts"),
      leaseMs: config.AGENT_LEDGER_LEASE_MS,
    });
    log.info("alerts are evaluated and delivered by the web server too (ALERTS_IN_WEB)");
    return {
      stop: async () => {
        await alerts.stop();
        await pool.end();
      },
    };
  } catch (error) {
    log.error(errorFields(error), "could not start alert delivery in the web server");
    await pool.end().catch(() => {});
    return null;
  }
}

/**
 * The dead-letter bulk runner (lib/server/commands/bulk-run.ts) on a pool of its own: bulk
 * actions a reviewer confirmed run here, where every deployment has a process, even when the
 * worker fleet is what the outage took down.
 */
function startBulk(config: ReturnType<typeof env>): BulkRunner | null {
  if (!config.DATABASE_URL) return null;
  const pool = createPool(config.DATABASE_URL, {
    max: 5,
    applicationName: "agent-ledger-web-bulk",
    log: logger("db"),
  });
  const runner = startBulkRunner({ pool, logger: logger("bulk-runner") });
  return {
    stop: async () => {
      await runner.stop();
      await pool.end();
    },
  };
}

/**
 * The configuration `next build` serialized beside the build. Next's own standalone server.js
 * hands it to Next in __NEXT_PRIVATE_STANDALONE_CONFIG and as `conf`; so does this server, built
 * or not: the built dashboard has no next.config.ts to load (nor TypeScript to load it with),
 * and a checkout then serves its build with the configuration it was built with, without Next's
 * warning that `next start` does not serve standalone output.
 */
function builtConfig(dir: string): Record<string, unknown> {
  const file = path.join(dir, ".next", "required-server-files.json");
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new Error(
      `no dashboard build in ${dir} (${(error as Error).message}): run \`npm run build\` first`,
    );
  }
  const config = (parsed as { config?: unknown }).config;
  if (typeof config !== "object" || config === null) {
    throw new Error(`${file} has no "config": rebuild the dashboard with \`npm run build\``);
  }
  return config as Record<string, unknown>;
}

async function main(): Promise<void> {
  // Next resolves some of its build's files from the working directory, so the built dashboard
  // starts from its own folder wherever it was started from (as Next's standalone server.js).
  if (BUILT) process.chdir(ROOT);
  const conf = builtConfig(ROOT);
  // `next start` always runs the production build; so does this server.
  Object.assign(process.env, {
    NODE_ENV: "production",
    __NEXT_PRIVATE_STANDALONE_CONFIG: JSON.stringify(conf),
  });
  // tsx turns on source maps, and Node then keeps the map of every file Next loads: about 80 MB
  // more resident memory for the same app. Our own stack traces point into the transpiled code.
  process.setSourceMapsEnabled(false);
  // Before Next loads, so its request spans and ours (docs/tracing.md) share the provider.
  const tracing = await startTracing("agent-ledger-web");
  const { default: next } = await import("next");
  const config = env();
  const log = logger("web");
  const trusted = config.TRUSTED_PROXIES ? parseTrustedProxies(config.TRUSTED_PROXIES) : null;
  const app = next({
    dev: false,
    dir: ROOT,
    conf,
    hostname: config.HOST,
    port: config.PORT,
    // Next adds an 'upgrade' listener to the server of the first request it handles, and in
    // production that listener answers nothing: the socket stays open, unread, until the process
    // runs out of files. Given a server of its own that never listens, it adds it there. This
    // server then has no 'upgrade' listener, so Node passes an Upgrade request to the gate like
    // any other request, and the gate refuses it and closes the connection (web/gate.ts).
    httpServer: createServer(),
  });
  // Next prepares while the schema is checked: a schema this code does not know stops the start.
  await Promise.all([
    app.prepare(),
    config.DATABASE_URL ? checkDashboardSchema(config.DATABASE_URL, log) : undefined,
  ]);
  const handle = app.getRequestHandler();
  // Not awaited: a database still starting must not hold the dashboard back from listening.
  const alerts = startAlerts(config, log);
  const bulk = startBulk(config);

  const serve = async (req: IncomingMessage, res: ServerResponse, expectsContinue: boolean) => {
    const id = randomUUID();
    const started = performance.now();
    const pathname = (req.url ?? "").split("?", 1)[0];
    const requestLog: Logger = log.child({ request: id });
    let refused: string | undefined;
    res.once("close", () => {
      const fields = {
        method: req.method,
        path: pathname,
        status: res.statusCode,
        ms: Math.round(performance.now() - started),
        ...(refused ? { refused } : {}),
      };
      if (refused || res.statusCode >= 500) requestLog.info(fields, "request");
      else requestLog.debug(fields, "request");
    });
    const verdict = admit({
      method: req.method,
      url: req.url,
      headers: req.headers,
      remoteAddress: req.socket.remoteAddress,
      trusted,
    });
    if (!verdict.ok) {
      refused = verdict.refusal.type;
      // A client waiting for 100 Continue sends no body: close instead of waiting for one.
      if (expectsContinue) answer(res, id, verdict.refusal, true);
      else refuseBody(req, res, id, verdict.refusal);
      return;
    }
    const { admission } = verdict;
    rewriteHeaders(req, admission.drop, admission.clientAddress);
    let forwarded = req;
    if (admission.hasBody) {
      if (expectsContinue) res.writeContinue();
      const read = await readBody(req, admission.bodyCap, BODY_IDLE_MS);
      if (!read.ok) {
        refused = read.reason;
        if (read.reason === "aborted") return;
        if (read.reason === "timeout") {
          answer(
            res,
            id,
            { type: "request-timeout", detail: `no body byte arrived for ${BODY_IDLE_MS} ms` },
            true,
          );
          return;
        }
        refuseBody(req, res, id, {
          type: "payload-too-large",
          detail: `at most ${admission.bodyCap} bytes here`,
        });
        return;
      }
      const form = admission.multipartAction
        ? multipartProblem(req.headers["content-type"] ?? "", read.body)
        : null;
      if (form) {
        refused = "multipart";
        answer(res, id, { type: "invalid-request", detail: form });
        return;
      }
      forwarded = replay(req, read.body);
    } else if (expectsContinue) {
      res.writeContinue();
    }
    res.setHeader("x-request-id", id);
    if (admission.api && takesDataCsp(admission.pathname)) {
      res.setHeader("content-security-policy", DATA_CSP);
    }
    await handle(forwarded, res);
  };

  const server = createServer(
    {
      headersTimeout: HEADERS_TIMEOUT_MS,
      requestTimeout: REQUEST_TIMEOUT_MS,
      // How often Node checks the two timeouts above (its default, 30 s, would stretch them).
      connectionsCheckingInterval: 1_000,
      // How long a kept-alive connection may sit between requests (Node's default, said here).
      keepAliveTimeout: 5_000,
    },
    (req, res) => {
      serve(req, res, false).catch((error: unknown) => failed(res, error));
    },
  );
  const failed = (res: ServerResponse, error: unknown) => {
    log.error(errorFields(error), "a request failed in the web server");
    if (res.headersSent) res.destroy();
    else answer(res, randomUUID(), { type: "internal", detail: "the error was logged" }, true);
  };
  server.on("checkContinue", (req, res) => {
    serve(req, res, true).catch((error: unknown) => failed(res, error));
  });
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    const started = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    // A client that hung up mid-request (often after its refusal) is owed nothing more.
    const hungUp = error.code === "ECONNRESET" || error.code === "HPE_INVALID_EOF_STATE";
    if (hungUp || !socket.writable || started?.headersSent) {
      socket.destroy();
      return;
    }
    const [refusal, status]: [Refusal, number] =
      error.code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? [{ type: "request-timeout", detail: "the request did not arrive in time" }, 408]
        : error.code === "HPE_HEADER_OVERFLOW"
          ? [{ type: "headers-too-large", detail: "the request headers are too large" }, 431]
          : [{ type: "invalid-request", detail: "the request is not valid HTTP/1.1" }, 400];
    log.info({ code: error.code, status }, "refused a request that is not valid HTTP");
    endRaw(socket, rawProblem(refusal, status));
  });

  // CONNECT is not an ordinary request in Node: without this the socket is dropped silently.
  server.on("connect", (_req: IncomingMessage, socket: Duplex) => {
    const refusal: Refusal = { type: "method-not-allowed", detail: "CONNECT is not served here" };
    endRaw(socket, rawProblem(refusal, 405));
  });
  server.timeout = IDLE_MS;

  let stopping = false;
  const stop = (why: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ why }, "stopping the web server");
    server.close();
    server.closeIdleConnections();
    const force = setTimeout(() => server.closeAllConnections(), STOP_GRACE_MS);
    force.unref();
    server.once("close", () => {
      clearTimeout(force);
      // The alert worker hands its delivery back (or finishes it) before its pool ends.
      void Promise.all([bulk?.stop(), alerts.then((running) => running?.stop())])
        .catch((error: unknown) => log.warn(errorFields(error), "stopping alerts failed"))
        .then(() => tracing?.shutdown())
        .catch((error: unknown) => log.warn(errorFields(error), "could not send the last spans"))
        .finally(() => process.exit(0));
    });
  };
  // `on`, not `once`: Ctrl-C reaches this process twice (from the terminal, and forwarded by
  // npm), and a second signal with no listener left would end it mid-stop.
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
  const parent = config.AGENT_LEDGER_PARENT_PID;
  if (parent) {
    // npm start is gone (kill -9): do not linger as an orphan.
    setInterval(() => {
      try {
        process.kill(parent, 0);
      } catch {
        stop("the launcher is gone");
      }
    }, 1_000).unref();
  }

  server.listen(config.PORT, config.HOST, () => {
    log.info({ host: config.HOST, port: config.PORT }, "the web server is listening");
  });
}

main().catch((error: unknown) => {
  if (error instanceof SchemaVersionError) {
    // Exit 2, as a worker does: a deployment problem to fix (migrate or upgrade), not a crash.
    logger("web").fatal({ schema: error.check.state }, error.message);
    process.exit(2);
  }
  logger("web").fatal(errorFields(error), "the web server could not start");
  process.exit(1);
});
