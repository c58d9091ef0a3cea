import { describe, expect, it } from "vitest";
import { EnvError, parseEnv, tracesExport } from "./env";

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

  it("rejects an out-of-range port", () => {
    expect(() => parseEnv({ PORT: "70000" })).toThrow(/PORT: must be between 1 and 65535/);
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
