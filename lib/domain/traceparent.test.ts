import { describe, expect, it } from "vitest";
import {
  attemptSpanId,
  formatTraceparent,
  parseTraceparent,
  taskTraceId,
  traceIdsOf,
  traceUrlOf,
} from "./traceparent";

const VALID = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

describe("traceparent", () => {
  it("accepts a W3C version 00 header, lower-cased", () => {
    expect(parseTraceparent(VALID)).toBe(VALID);
    expect(parseTraceparent(` ${VALID.toUpperCase()} `)).toBe(VALID);
    expect(traceIdsOf(VALID)).toEqual({
      traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
      spanId: "00f067aa0ba902b7",
      traceFlags: 1,
    });
    expect(
      formatTraceparent({ traceId: "a".repeat(32), spanId: "b".repeat(16), traceFlags: 0 }),
    ).toBe(`00-${"a".repeat(32)}-${"b".repeat(16)}-00`);
  });

  it("ignores anything else", () => {
    for (const bad of [
      undefined,
      null,
      "",
      "garbage",
      VALID.replace(/^00/, "01"),
      `00-${"0".repeat(32)}-00f067aa0ba902b7-01`,
      `00-4bf92f3577b34da6a3ce929d0e0e4736-${"0".repeat(16)}-01`,
      "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01",
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-1",
      `${VALID}-extra`,
      "00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01",
    ]) {
      expect(parseTraceparent(bad), String(bad)).toBeUndefined();
    }
  });

  it("derives an attempt's span id and a task's trace id from the task", () => {
    const task = "0f8fad5b-d9cb-469f-a165-70867728950e";
    expect(attemptSpanId(task, 1)).toMatch(/^[0-9a-f]{16}$/);
    expect(attemptSpanId(task, 1)).toBe(attemptSpanId(task, 1));
    expect(attemptSpanId(task, 2)).not.toBe(attemptSpanId(task, 1));
    expect(taskTraceId(task)).toBe("0f8fad5bd9cb469fa16570867728950e");
  });
});

describe("traceUrlOf", () => {
  it("puts the traceparent's trace id where the template says, every time it says so", () => {
    expect(traceUrlOf("https://tempo.example.com/trace/{traceId}", VALID)).toBe(
      "https://tempo.example.com/trace/4bf92f3577b34da6a3ce929d0e0e4736",
    );
    expect(
      traceUrlOf("https://ui.example.com/search?q={traceId}&again={traceId}", VALID.toUpperCase()),
    ).toBe(
      "https://ui.example.com/search?q=4bf92f3577b34da6a3ce929d0e0e4736&again=4bf92f3577b34da6a3ce929d0e0e4736",
    );
  });

  it("is nothing without a template or a valid traceparent", () => {
    expect(traceUrlOf(undefined, VALID)).toBeUndefined();
    expect(traceUrlOf("https://t.example.com/{traceId}", null)).toBeUndefined();
    expect(
      traceUrlOf("https://t.example.com/{traceId}", "00-zz-00f067aa0ba902b7-01"),
    ).toBeUndefined();
  });
});
