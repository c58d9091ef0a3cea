// Nobody can hold the web server's sockets open. Upgrade requests (a WebSocket handshake to a
// page or to Next's HMR path, h2c) are refused with a gate problem and the connection closed; a
// flood of them, half read and half abandoned unread after 1.5 s as the client that once took the
// server to its open-file limit did, leaves the server's open files (/proc/<pid>/fd) where they
// were, no socket in CLOSE-WAIT, and liveness answering throughout. Clients that neither read
// nor hang up (on an Upgrade, a CONNECT, bytes that are not HTTP, a head that never ends, an
// idle keep-alive) are cut by the server within its timeouts. Resource bounds, not timings.
import { readdirSync, readFileSync } from "node:fs";
import net from "node:net";
import { expect, test } from "../fixtures";
import { e2ePort } from "../settings";
import { webServerPid } from "../web-process";
import { expectGateProblem, send } from "./http";

const PORT = e2ePort();
const HOST = `127.0.0.1:${PORT}`;
const UPGRADE_PATHS = ["/", "/tasks", "/_next/webpack-hmr"];
const FLOOD = 3_000;
const AT_ONCE = 500;
/** How long an abandoning client waits before it hangs up, unread (as in the report). */
const LEAVE_MS = 1_500;
/** Open files the server may hold over its resting count: its pools open and close connections. */
const FD_MARGIN = 16;

const websocketHead = (path: string) =>
  `GET ${path} HTTP/1.1\r\nHost: ${HOST}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`;

const openFiles = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;

/** The server's sockets in CLOSE-WAIT: the client hung up and the server never closed its end. */
function closeWaits(): number {
  const port = PORT.toString(16).toUpperCase().padStart(4, "0");
  let count = 0;
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    for (const line of readFileSync(table, "utf8").split("\n").slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (local?.endsWith(`:${port}`) && state === "08") count += 1;
    }
  }
  return count;
}

async function liveness(): Promise<number> {
  const response = await fetch(`http://${HOST}/api/health?probe=live`);
  return response.status;
}

/** Polls until the server holds at most `limit` open files; returns the last count. */
async function settleOpenFiles(pid: number, limit: number, withinMs: number): Promise<number> {
  const until = Date.now() + withinMs;
  let count = openFiles(pid);
  while (count > limit && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 250));
    count = openFiles(pid);
  }
  return count;
}

/**
 * One WebSocket handshake on its own connection. "reads": reads the answer to the end and says
 * its status line's code, or "held" if the server has not closed within 10 s. "leaves": reads
 * nothing and hangs up after LEAVE_MS.
 */
function handshake(path: string, mode: "reads" | "leaves"): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(PORT, "127.0.0.1", () => socket.write(websocketHead(path)));
    let got = "";
    let done = false;
    const finish = (outcome: string) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    };
    const timer =
      mode === "leaves"
        ? setTimeout(() => finish("left"), LEAVE_MS)
        : setTimeout(() => finish("held"), 10_000);
    if (mode === "reads") socket.on("data", (chunk: Buffer) => (got += chunk.toString("latin1")));
    else socket.pause();
    socket.on("error", (error: NodeJS.ErrnoException) => finish(`error ${error.code}`));
    socket.on("end", () => finish(/^HTTP\/1\.1 (\d{3}) /.exec(got)?.[1] ?? "no answer"));
  });
}

/** Runs `count` jobs with at most `atOnce` in flight; tallies their outcomes. */
async function bounded(
  count: number,
  atOnce: number,
  job: (i: number) => Promise<string>,
): Promise<Record<string, number>> {
  const tally: Record<string, number> = {};
  let next = 0;
  const lane = async () => {
    while (next < count) {
      const outcome = await job(next++);
      tally[outcome] = (tally[outcome] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: atOnce }, lane));
  return tally;
}

test("a WebSocket or h2c Upgrade is a 400 problem and the connection is closed", async () => {
  for (const path of UPGRADE_PATHS) {
    const answer = await send({
      path,
      headers: { connection: "Upgrade", upgrade: "websocket", "sec-websocket-version": "13" },
    });
    expectGateProblem(answer, 400, "invalid-request");
    expect(answer.headers.connection).toBe("close");
    expect(answer.body).toContain("protocol upgrade");
  }
  const h2c = await send({
    path: "/api/health",
    headers: { connection: "Upgrade, HTTP2-Settings", upgrade: "h2c", "http2-settings": "" },
  });
  expectGateProblem(h2c, 400, "invalid-request");
  // Upgrade without Connection naming it is no upgrade: an ordinary request.
  expect((await send({ path: "/api/health", headers: { upgrade: "websocket" } })).status).toBe(200);
});

test(`${FLOOD} Upgrade handshakes, ${AT_ONCE} at a time, half abandoned unread, leave the server's open files at rest`, async () => {
  test.setTimeout(120_000);
  const pid = webServerPid();
  expect(await liveness()).toBe(200);
  const before = openFiles(pid);
  const closeWaitsBefore = closeWaits();
  const live: number[] = [];
  let flooding = true;
  const prober = (async () => {
    while (flooding) {
      live.push(await liveness());
      await new Promise((r) => setTimeout(r, 200));
    }
  })();
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, openFiles(pid));
  }, 100);
  const started = Date.now();
  const outcomes = await bounded(FLOOD, AT_ONCE, (i) =>
    handshake(UPGRADE_PATHS[i % UPGRADE_PATHS.length] ?? "/", i % 2 === 0 ? "reads" : "leaves"),
  );
  const floodMs = Date.now() - started;
  clearInterval(sampler);
  flooding = false;
  await prober;
  const after = await settleOpenFiles(pid, before + FD_MARGIN, 10_000);
  console.log(
    `upgrade flood: ${FLOOD} handshakes in ${floodMs} ms; outcomes ${JSON.stringify(outcomes)}; open files ${before} before, peak ${peak}, ${after} after; CLOSE-WAIT ${closeWaitsBefore} before, ${closeWaits()} after; liveness ${live.length} probes`,
  );
  // Every handshake that read was answered 400 and closed by the server; none was held.
  expect(outcomes).toEqual({ "400": FLOOD / 2, left: FLOOD / 2 });
  expect(after).toBeLessThanOrEqual(before + FD_MARGIN);
  expect(closeWaits()).toBe(0);
  expect(live.length).toBeGreaterThan(0);
  expect(live.every((status) => status === 200)).toBe(true);
  expect(await liveness()).toBe(200);
});

test("clients that neither read nor hang up are cut within the server's timeouts", async () => {
  test.setTimeout(60_000);
  const pid = webServerPid();
  const before = openFiles(pid);
  const heads: Record<string, string> = {
    "WebSocket Upgrade": websocketHead("/tasks"),
    "h2c Upgrade": `GET / HTTP/1.1\r\nHost: ${HOST}\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: \r\n\r\n`,
    CONNECT: `CONNECT ${HOST} HTTP/1.1\r\nHost: ${HOST}\r\n\r\n`,
    "not HTTP": "NOT HTTP AT ALL\r\n\r\n",
    "a head that never ends": `GET / HTTP/1.1\r\nHost: ${HOST}\r\n`,
    "nothing at all": "",
    "an idle keep-alive": `GET /api/health?probe=live HTTP/1.1\r\nHost: ${HOST}\r\n\r\n`,
  };
  const EACH = 40;
  const sockets: net.Socket[] = [];
  for (const head of Object.values(heads)) {
    for (let i = 0; i < EACH; i++) {
      const socket = net.connect({ port: PORT, host: "127.0.0.1", allowHalfOpen: true }, () => {
        if (head) socket.write(head);
      });
      socket.pause();
      socket.on("error", () => undefined);
      sockets.push(socket);
    }
  }
  try {
    await expect.poll(() => openFiles(pid)).toBeGreaterThan(before + EACH);
    // The longest bound is the 10 s for a head to arrive (web/server.ts HEADERS_TIMEOUT_MS).
    const after = await settleOpenFiles(pid, before + FD_MARGIN, 20_000);
    console.log(
      `held connections: ${sockets.length} (${Object.keys(heads).join(", ")}); open files ${before} before, ${after} with every client still connected`,
    );
    expect(after).toBeLessThanOrEqual(before + FD_MARGIN);
  } finally {
    for (const socket of sockets) socket.destroy();
  }
  expect(await liveness()).toBe(200);
});
