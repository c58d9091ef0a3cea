import { describe, expect, it } from "vitest";
import { configuredPrices, EnvError, parseEnv, tracesExport } from "./env";

describe("parseEnv", () => {
  it("applies defaults", () => {
    expect(parseEnv({})).toMatchObject({ PORT: 3000, HOST: "127.0.0.1", DATABASE_POOL_MAX: 10 });
  });

  it("treats empty strings as unset", () => {
    expect(parseEnv({ DATABASE_URL: "" }).DATABASE_URL).toBeUndefined();
  });

  it("names every bad variable and what is wrong", () => {
    try {
      parseEnv({ DATABASE_URL: "mysql://x", PORT: "eighty" });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(EnvError);
      const message = (err as Error).message;
      expect(message).toContain("DATABASE_URL: must be a postgres:// or postgresql:// URL");
      expect(message).toContain("PORT: must be a number");
    }
  });

  it("takes TRACE_URL_TEMPLATE only as an http(s) URL with {traceId} in it", () => {
    const template = "https://tempo.example.com/trace/{traceId}";
    expect(parseEnv({ TRACE_URL_TEMPLATE: template }).TRACE_URL_TEMPLATE).toBe(template);
    expect(() => parseEnv({ TRACE_URL_TEMPLATE: "https://tempo.example.com/trace/" })).toThrow(
      /TRACE_URL_TEMPLATE: must contain \{traceId\}/,
    );
    expect(() => parseEnv({ TRACE_URL_TEMPLATE: "javascript:alert('{traceId}')" })).toThrow(
      /TRACE_URL_TEMPLATE: must be an http\(s\) URL/,
    );
    expect(() => parseEnv({ TRACE_URL_TEMPLATE: "tempo/{traceId}" })).toThrow(
      /TRACE_URL_TEMPLATE: must be an http\(s\) URL/,
    );
  });

  it("rejects an out-of-range port", () => {
    expect(() => parseEnv({ PORT: "70000" })).toThrow(/PORT: must be between 1 and 65535/);
  });
});

describe("MODEL_PRICES", () => {
  it("parses model id → price, and MODEL_NAME's price from the two older variables", () => {
    const e = parseEnv({
      MODEL_PRICES: '{"gpt-4o":{"inputPerMTok":2,"outputPerMTok":8,"cachedInputPerMTok":0.5}}',
      MODEL_NAME: "llama3.1:8b",
      MODEL_INPUT_PRICE_PER_MTOK: "0.1",
      MODEL_OUTPUT_PRICE_PER_MTOK: "0.2",
    });
    expect(configuredPrices(e)).toEqual({
      "gpt-4o": { inputPerMTok: 2, outputPerMTok: 8, cachedInputPerMTok: 0.5 },
      "llama3.1:8b": { inputPerMTok: 0.1, outputPerMTok: 0.2 },
    });
    // Unset: nothing configured, the shipped table prices the default model.
    expect(configuredPrices(parseEnv({}))).toEqual({});
  });

  it("names what is wrong: not JSON, a bad price, a typo'd field, half or twice a price", () => {
    expect(() => parseEnv({ MODEL_PRICES: "gpt-4o=2" })).toThrow(
      /MODEL_PRICES: must be a JSON object like/,
    );
    expect(() => parseEnv({ MODEL_PRICES: "[1]" })).toThrow(
      /MODEL_PRICES: must be a JSON object of model id/,
    );
    expect(() =>
      parseEnv({ MODEL_PRICES: '{"gpt-4o":{"inputPerMTok":-1,"outputPerMTok":"8"}}' }),
    ).toThrow(
      /MODEL_PRICES\.gpt-4o\.inputPerMTok: must be at least 0[\s\S]*MODEL_PRICES\.gpt-4o\.outputPerMTok: must be a number of US dollars per million tokens/,
    );
    expect(() =>
      parseEnv({ MODEL_PRICES: '{"gpt-4o":{"input":1,"inputPerMTok":1,"outputPerMTok":1}}' }),
    ).toThrow(/MODEL_PRICES\.gpt-4o: Unrecognized key: "input"/);
    expect(() => parseEnv({ MODEL_INPUT_PRICE_PER_MTOK: "1" })).toThrow(
      /set both MODEL_INPUT_PRICE_PER_MTOK and MODEL_OUTPUT_PRICE_PER_MTOK, or neither/,
    );
    expect(() =>
      parseEnv({
        MODEL_PRICES: '{"gpt-4o-mini":{"inputPerMTok":1,"outputPerMTok":1}}',
        MODEL_INPUT_PRICE_PER_MTOK: "1",
        MODEL_OUTPUT_PRICE_PER_MTOK: "1",
      }),
    ).toThrow(/MODEL_PRICES: MODEL_PRICES also prices MODEL_NAME/);
  });
});

describe("tracesExport", () => {
  const traces = (vars: Record<string, string>) => tracesExport(parseEnv(vars));

  it("is off without an endpoint or an exporter asked for", () => {
    expect(traces({})).toBeUndefined();
    expect(traces({ OTEL_SERVICE_NAME: "x" })).toBeUndefined();
  });

  it("sends to <endpoint>/v1/traces, or to the traces endpoint when given", () => {
    expect(traces({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318/" })).toEqual({
      kind: "otlp",
      url: "http://collector:4318/v1/traces",
    });
    expect(
      traces({
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318",
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://other:4318/custom",
      }),
    ).toEqual({ kind: "otlp", url: "http://other:4318/custom" });
    expect(traces({ OTEL_TRACES_EXPORTER: "otlp" })).toEqual({
      kind: "otlp",
      url: "http://localhost:4318/v1/traces",
    });
    expect(traces({ OTEL_TRACES_EXPORTER: "console" })).toEqual({ kind: "console" });
  });

  it("none and OTEL_SDK_DISABLED win", () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" };
    expect(traces({ ...endpoint, OTEL_TRACES_EXPORTER: "none" })).toBeUndefined();
    expect(traces({ ...endpoint, OTEL_SDK_DISABLED: "true" })).toBeUndefined();
    expect(() => traces({ OTEL_TRACES_EXPORTER: "zipkin" })).toThrow(/OTEL_TRACES_EXPORTER/);
  });
});
