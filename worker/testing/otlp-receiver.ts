// The collector's side of OTLP over HTTP (JSON) for the tracing tests: POST /v1/traces is
// answered 200 and its spans kept, each with the service that sent it. Closed with the file.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll } from "vitest";

type OtlpValue = {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values: OtlpValue[] };
};
export type OtlpSpan = {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: { key: string; value: OtlpValue }[];
  links?: { traceId: string; spanId: string }[];
  status?: { code?: number; message?: string };
};
export type Received = OtlpSpan & { service: string };
type OtlpRequest = {
  resourceSpans: {
    resource?: { attributes?: { key: string; value: OtlpValue }[] };
    scopeSpans: { spans: OtlpSpan[] }[];
  }[];
};

/** A receiver on a free port: `url` is the OTLP endpoint, `received` fills as spans arrive. */
export async function otlpReceiver(): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (req.method === "POST" && req.url === "/v1/traces") {
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as OtlpRequest;
        for (const rs of body.resourceSpans) {
          const service = String(
            rs.resource?.attributes?.find((a) => a.key === "service.name")?.value.stringValue,
          );
          for (const ss of rs.scopeSpans)
            for (const s of ss.spans) received.push({ ...s, service });
        }
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));
  return { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`, received };
}

/** A span attribute's value (an array's as a list), or undefined. */
export function attr(
  span: OtlpSpan,
  key: string,
): string | number | boolean | (string | number | boolean | undefined)[] | undefined {
  const v = span.attributes?.find((a) => a.key === key)?.value;
  return v ? otlpValue(v) : undefined;
}

function otlpValue(
  v: OtlpValue,
): string | number | boolean | (string | number | boolean | undefined)[] | undefined {
  if (v.arrayValue)
    return v.arrayValue.values.map((x) => otlpValue(x) as string | number | boolean);
  if (v.intValue !== undefined) return Number(v.intValue);
  return v.stringValue ?? v.doubleValue ?? v.boolValue;
}

/**
 * This test process traced into a receiver of its own, as the web server would be: the OTEL_*
 * variables set and tracing started before anything reads them (so import nothing that reads
 * the environment before calling this), with a test database whose app URL the API routes' pool
 * reads. Afterwards the process runs untraced again, as before.
 */
export async function traceThisProcess(opts: {
  service: string;
  database: string;
  batchDelayMs: number;
}) {
  const { url, received } = await otlpReceiver();
  const otel = {
    OTEL_EXPORTER_OTLP_ENDPOINT: url,
    OTEL_BSP_SCHEDULE_DELAY: String(opts.batchDelayMs),
  };
  Object.assign(process.env, otel);
  const { setUpTestDatabase } = await import("../../db/testing/database");
  const t = await setUpTestDatabase(opts.database);
  process.env.DATABASE_URL = t.appUrl;
  const { startTracing } = await import("../../lib/server/tracing");
  const tracing = await startTracing(opts.service);
  afterAll(async () => {
    await tracing?.shutdown();
    const { trace, context } = await import("@opentelemetry/api");
    trace.disable();
    context.disable();
    for (const name of Object.keys(otel)) delete process.env[name];
  });
  /** `otel`: the variables, for child processes that report to the same receiver. */
  return { received, t, otel, tracing };
}
