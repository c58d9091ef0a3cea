import { describe, expect, it } from "vitest";
import {
  describeRateLimit,
  MAX_RETRY_AFTER_MS,
  parseRetryAfter,
  rateLimitBucket,
  rateLimitSchema,
  waitOrHandBack,
} from "./rate-limit";

describe("parseRetryAfter", () => {
  const now = new Date("2026-12-03T06:00:00Z");
  it("reads delay-seconds and HTTP dates", () => {
    expect(parseRetryAfter("1", now)).toBe(1_000);
    expect(parseRetryAfter(" 0.25 ", now)).toBe(250);
    expect(parseRetryAfter("Thu, 03 Dec 2026 06:00:30 GMT", now)).toBe(30_000);
  });
  it("caps absurd values at an hour and a date past at zero", () => {
    expect(parseRetryAfter("999999", now)).toBe(MAX_RETRY_AFTER_MS);
    expect(parseRetryAfter("Thu, 03 Dec 2026 05:00:00 GMT", now)).toBe(0);
  });
  it("says nothing for an absent or unreadable header", () => {
    expect(parseRetryAfter(null, now)).toBeUndefined();
    expect(parseRetryAfter("", now)).toBeUndefined();
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    expect(parseRetryAfter("-3", now)).toBeUndefined();
  });
});

describe("rate limits", () => {
  it("counts a keyed call in its own bucket", () => {
    expect(rateLimitBucket("refund", undefined)).toBe("refund");
    expect(rateLimitBucket("refund", "m-7")).toBe("refund:m-7");
  });
  it("sits out a wait up to a third of the lease and hands longer ones back", () => {
    expect(waitOrHandBack(1_000, 3_000)).toBe("wait");
    expect(waitOrHandBack(1_001, 3_000)).toBe("hand-back");
  });
  it("refuses a limit that is not a positive whole number, naming the field", () => {
    const r = rateLimitSchema.safeParse({ limit: 0, periodMs: 1000 });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.path).toEqual(["limit"]);
  });
});

describe("describeRateLimit", () => {
  it("reads the period in the largest whole unit", () => {
    expect(describeRateLimit({ limit: 10, periodMs: 1_000, keyed: false })).toBe(
      "10 calls per 1 s",
    );
    expect(describeRateLimit({ limit: 1, periodMs: 120_000, keyed: true })).toBe(
      "1 call per 2 min per key",
    );
    expect(describeRateLimit({ limit: 5, periodMs: 250, keyed: false })).toBe("5 calls per 250 ms");
    expect(describeRateLimit({ limit: 5, periodMs: 3_600_000, keyed: false })).toBe(
      "5 calls per 1 h",
    );
  });
});
