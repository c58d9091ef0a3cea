// A body flood: many connections at once, each streaming a big body as fast as the server takes
// it. Used by body-flood.spec.ts, and runnable against any server to compare.
import http from "node:http";

export type FloodResult = { statuses: Record<string, number>; bytesSent: number };

export type Flood = {
  port: number;
  path: string;
  connections: number;
  bytesEach: number;
  headers: Record<string, string>;
  /** Declare the size up front (Content-Length) or stream it chunked. */
  framing: "content-length" | "chunked";
};

const CHUNK = Buffer.alloc(64 * 1024, "a");

/** One POST streaming `bytesEach`; resolves with its status, or how the connection ended. */
function one(f: Flood, sent: { bytes: number }): Promise<string> {
  return new Promise((resolve) => {
    let status: string | undefined;
    const req = http.request(
      {
        host: "127.0.0.1",
        port: f.port,
        method: "POST",
        path: f.path,
        agent: false,
        headers: {
          ...f.headers,
          ...(f.framing === "content-length"
            ? { "content-length": String(f.bytesEach) }
            : { "transfer-encoding": "chunked" }),
        },
      },
      (res) => {
        status = String(res.statusCode);
        res.resume();
        res.on("close", () => resolve(status ?? "closed"));
      },
    );
    // Once answered, the server may hang up on the rest of the body: that is the point.
    req.on("error", (error: NodeJS.ErrnoException) =>
      resolve(status ?? `error ${error.code ?? error.message}`),
    );
    let left = f.bytesEach;
    const pump = () => {
      while (left > 0 && status === undefined) {
        const chunk = left >= CHUNK.length ? CHUNK : CHUNK.subarray(0, left);
        left -= chunk.length;
        sent.bytes += chunk.length;
        if (!req.write(chunk)) {
          req.once("drain", pump);
          return;
        }
      }
      if (left === 0) req.end();
    };
    pump();
  });
}

export async function flood(f: Flood): Promise<FloodResult> {
  const sent = { bytes: 0 };
  const outcomes = await Promise.all(Array.from({ length: f.connections }, () => one(f, sent)));
  const statuses: Record<string, number> = {};
  for (const o of outcomes) statuses[o] = (statuses[o] ?? 0) + 1;
  return { statuses, bytesSent: sent.bytes };
}
