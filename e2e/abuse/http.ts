// Raw HTTP for the abuse specs: node:http with any method, headers the client libraries refuse
// to send (a Content-Length that lies, TRACE), bodies streamed or never sent; and the checks every
// answer the web gate gives must pass.
import http from "node:http";
import net from "node:net";
import { expect } from "@playwright/test";
import { SECURITY_HEADERS } from "../../web/headers";
import { e2ePort } from "../settings";

export const HOST = `127.0.0.1:${e2ePort()}`;
export const ORIGIN = `http://${HOST}`;

export type Answer = { status: number; headers: http.IncomingHttpHeaders; body: string };

export type Send = {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  /**
   * Written whole; "none": the head only, whatever Content-Length says; `partial`: these bytes,
   * then silence.
   */
  body?: string | Buffer | "none" | { partial: string };
};

/**
 * One request on its own connection; resolves with the answer (the body read to its end) even
 * when the server closes the connection on a body it stopped reading.
 */
export function send({ method = "GET", path, headers = {}, body }: Send): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: "127.0.0.1", port: e2ePort(), method, path, headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("error", () => undefined);
        const done = () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString("utf8"),
          });
        res.on("end", done);
        res.on("close", done);
      },
    );
    req.on("error", reject);
    if (body === "none") {
      req.flushHeaders();
      return;
    }
    if (typeof body === "object" && "partial" in body) {
      req.write(body.partial);
      return;
    }
    req.end(body);
  });
}

/** A problem+json answer with the security headers and a CSP, as every gate answer is. */
export function expectGateProblem(answer: Answer, status: number, type: string): void {
  expect(answer.status, answer.body.slice(0, 300)).toBe(status);
  expect(answer.headers["content-type"]).toBe("application/problem+json");
  expect(JSON.parse(answer.body)).toMatchObject({
    type: `https://agent-ledger.dev/problems/${type}`,
    status,
  });
  expectSecurityHeaders(answer);
  expect(answer.headers["content-security-policy"]).toContain("default-src 'none'");
}

/** The headers next.config.ts sets on every response. */
export function expectSecurityHeaders(answer: Answer): void {
  for (const { key, value } of SECURITY_HEADERS) {
    expect(answer.headers[key.toLowerCase()], key).toBe(value);
  }
}

/**
 * Bytes straight onto a TCP connection, for what no HTTP client sends (a head that never ends,
 * CONNECT); resolves with everything the server wrote once it closes the connection.
 */
export function raw(bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(e2ePort(), "127.0.0.1", () => socket.write(bytes));
    const chunks: Buffer[] = [];
    socket.on("data", (c: Buffer) => chunks.push(c));
    socket.on("error", reject);
    socket.on("close", () => resolve(Buffer.concat(chunks).toString("utf8")));
  });
}
