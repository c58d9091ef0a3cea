// A request body read before Next sees it: counted as it arrives and cut at the route's cap,
// dropped when it stops arriving, then handed to Next as a request whose body is that buffer.
import { IncomingMessage } from "node:http";

export type BodyRead =
  | { ok: true; body: Buffer }
  | { ok: false; reason: "too-large" | "timeout" | "aborted" };

/** At most `cap` bytes are ever held; `idleMs` without a byte ends the wait. */
export function readBody(req: IncomingMessage, cap: number, idleMs: number): Promise<BodyRead> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    let timer: NodeJS.Timeout | undefined;
    const finish = (result: BodyRead) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onAbort);
      req.off("close", onAbort);
      if (!result.ok) req.pause();
      resolve(result);
    };
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => finish({ ok: false, reason: "timeout" }), idleMs);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > cap) {
        chunks.length = 0;
        finish({ ok: false, reason: "too-large" });
        return;
      }
      chunks.push(chunk);
      arm();
    };
    const onEnd = () => finish({ ok: true, body: Buffer.concat(chunks, size) });
    const onAbort = () => finish({ ok: false, reason: "aborted" });
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onAbort);
    req.on("close", onAbort);
    arm();
  });
}

/**
 * The same request with its body already read: a real IncomingMessage on the same socket (Next
 * reads headers, URL and socket from it), whose stream replays `body` and then ends.
 */
export function replay(req: IncomingMessage, body: Buffer): IncomingMessage {
  const copy = new IncomingMessage(req.socket);
  copy.method = req.method;
  copy.url = req.url;
  copy.headers = req.headers;
  copy.rawHeaders = req.rawHeaders;
  copy.trailers = req.trailers;
  copy.rawTrailers = req.rawTrailers;
  copy.httpVersion = req.httpVersion;
  copy.httpVersionMajor = req.httpVersionMajor;
  copy.httpVersionMinor = req.httpVersionMinor;
  copy.complete = true;
  copy.push(body);
  copy.push(null);
  return copy;
}
