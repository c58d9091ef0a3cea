import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BUILT_IN_POLICY, backoffDelayMs, type RetryPolicy, resolvePolicy } from "./retry-policy";

describe("resolvePolicy", () => {
  it("takes each field from the first level that sets it: task, agent, global, built-in", () => {
    const policy = resolvePolicy({
      task: { maxAttempts: 2 },
      agent: { maxAttempts: 9, backoffInitialMs: 50, budget: 0.5 },
      global: { backoffInitialMs: 10, backoffFactor: 3, attemptTimeoutMs: 5_000 },
    });
    expect(policy).toEqual({
      maxAttempts: 2,
      backoffInitialMs: 50,
      backoffFactor: 3,
      backoffMaxMs: BUILT_IN_POLICY.backoffMaxMs,
      attemptTimeoutMs: 5_000,
      budget: 0.5,
    });
  });

  it("treats null as not set", () => {
    expect(
      resolvePolicy({ task: { maxAttempts: undefined }, agent: null, global: { budget: null } }),
    ).toEqual(BUILT_IN_POLICY);
  });
});

describe("backoffDelayMs", () => {
  const policy: RetryPolicy = {
    ...BUILT_IN_POLICY,
    backoffInitialMs: 100,
    backoffFactor: 2,
    backoffMaxMs: 1_000,
  };

  it("grows exponentially up to the cap", () => {
    const almostOne = 0.999_999;
    expect(backoffDelayMs(policy, 1, almostOne)).toBe(99);
    expect(backoffDelayMs(policy, 2, almostOne)).toBe(199);
    expect(backoffDelayMs(policy, 4, almostOne)).toBe(799);
    expect(backoffDelayMs(policy, 5, almostOne)).toBe(999);
    expect(backoffDelayMs(policy, 50, almostOne)).toBe(999);
  });

  it("stays within [0, min(max, initial·factor^(n-1))] for any attempt and random draw", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 200 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (n, r) => {
          const d = backoffDelayMs(policy, n, r);
          expect(d).toBeGreaterThanOrEqual(0);
          expect(d).toBeLessThanOrEqual(Math.min(1_000, 100 * 2 ** (n - 1)));
          expect(Number.isInteger(d)).toBe(true);
        },
      ),
    );
  });
});
