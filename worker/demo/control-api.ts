// The `/__control/` API both demo receivers expose to other processes (the crash harness):
// read what was recorded, change the faults, start over.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { z } from "zod";
import { BodyTooLargeError, isLoopback, readBody, sendJson } from "./http-io";

export const CONTROL_PREFIX = "/__control/";

export type ControlApi<F> = {
  /** `GET /__control/<name>` answers `{ <name>: read() }`. */
  records: Record<string, () => unknown>;
  faultsSchema: z.ZodType<F>;
  getFaults(): F;
  setFaults(faults: F): void;
  reset(): void;
};

export async function handleControl<F>(
  req: IncomingMessage,
  res: ServerResponse,
  api: ControlApi<F>,
): Promise<void> {
  if (!isLoopback(req.socket.remoteAddress)) {
    sendJson(res, 403, { error: "the control API answers loopback clients only" });
    return;
  }
  const path = new URL(req.url ?? "/", "http://control").pathname;
  const name = path.slice(CONTROL_PREFIX.length);
  const route = `${req.method ?? "GET"} ${name}`;

  if (route === "GET faults") {
    sendJson(res, 200, { faults: api.getFaults() });
    return;
  }
  if (route === "PUT faults") {
    let input: unknown;
    try {
      input = JSON.parse(await readBody(req, 64_000));
    } catch (err) {
      const status = err instanceof BodyTooLargeError ? 413 : 400;
      const reason = err instanceof Error ? err.message : String(err);
      sendJson(res, status, { error: `faults must be a JSON object: ${reason}` });
      return;
    }
    const parsed = api.faultsSchema.safeParse(input);
    if (!parsed.success) {
      sendJson(res, 400, { error: "invalid faults", issues: parsed.error.issues });
      return;
    }
    api.setFaults(parsed.data);
    sendJson(res, 200, { faults: api.getFaults() });
    return;
  }
  if (route === "POST reset") {
    api.reset();
    sendJson(res, 200, { reset: true });
    return;
  }
  const read =
    req.method === "GET" && Object.hasOwn(api.records, name) ? api.records[name] : undefined;
  if (read !== undefined) {
    sendJson(res, 200, { [name]: read() });
    return;
  }
  sendJson(res, 404, { error: `no control route ${req.method} ${path}` });
}
