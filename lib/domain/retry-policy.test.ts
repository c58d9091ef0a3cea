import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  BUILT_IN_POLICY,
  backoffDelayMs,
  inheritedBy,
  POLICY_FIELDS,
  POLICY_LEVELS,
  type PolicyLevels,
  partialRetryPolicySchema,
  policyFieldChanges,
  policyInForceChanges,
  type RetryPolicy,
  resolvePolicy,
  resolvePolicyWithSources,
  taskPolicySchema,
} from "./retry-policy";

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
      concurrencyLimit: null,
    });
  });

  it("treats null as not set", () => {
    expect(
      resolvePolicy({ task: { maxAttempts: undefined }, agent: null, global: { budget: null } }),
    ).toEqual(BUILT_IN_POLICY);
  });
});

describe("resolvePolicyWithSources", () => {
  // The refund agent's code sets 6 attempts and a 500 ms first backoff; the demo's global row
  // sets every field.
  const demo: PolicyLevels = {
    code: { maxAttempts: 6, backoffInitialMs: 500 },
    global: { ...BUILT_IN_POLICY, budget: 1 },
  };

  it("puts the agent's code between its row and the global row", () => {
    expect(POLICY_LEVELS).toEqual(["task", "agent", "code", "global", "built-in"]);
    const fromCode = resolvePolicyWithSources(demo);
    expect(fromCode.policy.maxAttempts).toBe(6);
    expect(fromCode.sources.maxAttempts).toBe("code");
    expect(fromCode.policy.backoffInitialMs).toBe(500);
    expect(fromCode.sources.backoffInitialMs).toBe("code");
    expect(fromCode.sources.backoffFactor).toBe("global");
    expect(fromCode.policy.budget).toBe(1);

    const overridden = resolvePolicyWithSources({ ...demo, agent: { maxAttempts: 3 } });
    expect(overridden.policy.maxAttempts).toBe(3);
    expect(overridden.sources.maxAttempts).toBe("agent");
    expect(overridden.sources.backoffInitialMs).toBe("code");

    const task = resolvePolicyWithSources({
      ...demo,
      agent: { maxAttempts: 3 },
      task: { maxAttempts: 1 },
    });
    expect([task.policy.maxAttempts, task.sources.maxAttempts]).toEqual([1, "task"]);
  });

  it("names built-in for every field no level sets", () => {
    const none = resolvePolicyWithSources({ code: {}, global: null });
    expect(none.policy).toEqual(BUILT_IN_POLICY);
    for (const f of POLICY_FIELDS) expect(none.sources[f]).toBe("built-in");
  });

  it("agrees with resolvePolicy, and each value is the one its named level sets", () => {
    const partial = fc.record(
      {
        maxAttempts: fc.option(fc.integer({ min: 1, max: 1000 }), { nil: undefined }),
        backoffInitialMs: fc.option(fc.integer({ min: 0, max: 10_000 }), { nil: undefined }),
        backoffFactor: fc.option(fc.double({ min: 1, max: 100, noNaN: true }), { nil: undefined }),
        budget: fc.option(fc.option(fc.double({ min: 0, max: 10, noNaN: true })), {
          nil: undefined,
        }),
      },
      { requiredKeys: [] },
    );
    const level = fc.option(partial, { nil: undefined });
    fc.assert(
      fc.property(level, level, level, level, (task, agent, code, global) => {
        const levels: PolicyLevels = { task, agent, code, global };
        const { policy, sources } = resolvePolicyWithSources(levels);
        expect(resolvePolicy(levels)).toEqual(policy);
        for (const f of POLICY_FIELDS) {
          const source = sources[f];
          const expected = source === "built-in" ? BUILT_IN_POLICY[f] : levels[source]?.[f];
          expect(policy[f]).toBe(expected);
          // No level above the named one sets the field.
          for (const above of POLICY_LEVELS.slice(0, POLICY_LEVELS.indexOf(source))) {
            if (above !== "built-in") expect(levels[above]?.[f] ?? null).toBeNull();
          }
        }
      }),
    );
  });
});

describe("inheritedBy", () => {
  it("is what an empty field of that level falls through to", () => {
    const levels: PolicyLevels = {
      agent: { maxAttempts: 3, attemptTimeoutMs: 9_000 },
      code: { maxAttempts: 6 },
      global: { maxAttempts: 5, attemptTimeoutMs: 30_000 },
    };
    const forRow = inheritedBy("agent", levels);
    expect([forRow.policy.maxAttempts, forRow.sources.maxAttempts]).toEqual([6, "code"]);
    expect([forRow.policy.attemptTimeoutMs, forRow.sources.attemptTimeoutMs]).toEqual([
      30_000,
      "global",
    ]);
    const forGlobal = inheritedBy("global", levels);
    expect(forGlobal.policy).toEqual(BUILT_IN_POLICY);
    expect(forGlobal.sources.maxAttempts).toBe("built-in");
  });
});

describe("policyFieldChanges", () => {
  it("lists each changed field before → after, in screen order, null where the row did not set it", () => {
    expect(
      policyFieldChanges(
        { maxAttempts: 6, backoffInitialMs: 500 },
        { maxAttempts: 3, backoffInitialMs: 500, budget: 2 },
      ),
    ).toEqual([
      { field: "maxAttempts", before: 6, after: 3, inForce: null },
      { field: "budget", before: null, after: 2, inForce: null },
    ]);
    expect(policyFieldChanges(null, { maxAttempts: 4 })).toEqual([
      { field: "maxAttempts", before: null, after: 4, inForce: null },
    ]);
    expect(policyFieldChanges({ maxAttempts: 4 }, { maxAttempts: 4 })).toEqual([]);
  });

  it("reads what was in force where the entry recorded it, and entries past a later bound", () => {
    const inForce = {
      maxAttempts: {
        before: { value: 6, source: "code" },
        after: { value: 5, source: "agent" },
      },
    };
    expect(policyFieldChanges({}, { maxAttempts: 5 }, inForce)).toEqual([
      { field: "maxAttempts", before: null, after: 5, inForce: inForce.maxAttempts },
    ]);
    // A shape it does not know is no record of what was in force, not an unreadable entry.
    expect(policyFieldChanges({}, { maxAttempts: 5 }, { maxAttempts: "six" })).toEqual([
      { field: "maxAttempts", before: null, after: 5, inForce: null },
    ]);
    expect(policyFieldChanges({ budget: 5e6 }, { budget: 1 })).toEqual([
      { field: "budget", before: 5e6, after: 1, inForce: null },
    ]);
  });

  it("cannot read entries of another shape", () => {
    expect(policyFieldChanges(null, null)).toBeNull();
    expect(policyFieldChanges({ maxAttempts: "many" }, { maxAttempts: 4 })).toBeNull();
    expect(policyFieldChanges(null, [1, 2])).toBeNull();
  });
});

describe("policyInForceChanges", () => {
  const below = { code: { maxAttempts: 6, backoffInitialMs: 500 }, global: { maxAttempts: 3 } };

  it("says an agent row's change replaced the value its code set, and what a cleared field falls to", () => {
    expect(policyInForceChanges("agent:refund", null, { maxAttempts: 5 }, below)).toEqual({
      maxAttempts: { before: { value: 6, source: "code" }, after: { value: 5, source: "agent" } },
    });
    expect(
      policyInForceChanges("agent:refund", { maxAttempts: 5, budget: 2 }, { budget: 2 }, below),
    ).toEqual({
      maxAttempts: { before: { value: 5, source: "agent" }, after: { value: 6, source: "code" } },
    });
    expect(
      policyInForceChanges("agent:refund", null, { attemptTimeoutMs: 9_000 }, { global: null }),
    ).toEqual({
      attemptTimeoutMs: {
        before: { value: BUILT_IN_POLICY.attemptTimeoutMs, source: "built-in" },
        after: { value: 9_000, source: "agent" },
      },
    });
  });

  it("resolves the global row over the built-in defaults only, and lists only changed fields", () => {
    expect(
      policyInForceChanges("global", null, { ...BUILT_IN_POLICY, maxAttempts: 8 }, below),
    ).toEqual({
      maxAttempts: {
        before: { value: 5, source: "built-in" },
        after: { value: 8, source: "global" },
      },
      backoffInitialMs: {
        before: { value: 1_000, source: "built-in" },
        after: { value: 1_000, source: "global" },
      },
      backoffFactor: {
        before: { value: 2, source: "built-in" },
        after: { value: 2, source: "global" },
      },
      backoffMaxMs: {
        before: { value: 60_000, source: "built-in" },
        after: { value: 60_000, source: "global" },
      },
      attemptTimeoutMs: {
        before: { value: 60_000, source: "built-in" },
        after: { value: 60_000, source: "global" },
      },
    });
    expect(policyInForceChanges("global", { maxAttempts: 8 }, { maxAttempts: 8 }, below)).toEqual(
      {},
    );
  });
});

describe("retryPolicySchema bounds", () => {
  it("refuses what the runtime cannot honour, naming the bound", () => {
    const r = partialRetryPolicySchema.safeParse({
      attemptTimeoutMs: 2 ** 31,
      backoffFactor: Number.POSITIVE_INFINITY,
      budget: 1e300,
      maxAttempts: -1,
    });
    expect(r.success).toBe(false);
    if (r.success) return;
    expect(Object.fromEntries(r.error.issues.map((i) => [i.path.join("."), i.message]))).toEqual({
      attemptTimeoutMs: "must be at most 86400000",
      backoffFactor: "must be a finite number",
      budget: "must be at most 1000000",
      maxAttempts: "must be at least 1",
    });
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

describe("taskPolicySchema", () => {
  it("refuses a concurrency limit on a task, which is the agent's as a whole", () => {
    const r = taskPolicySchema.safeParse({ maxAttempts: 3, concurrencyLimit: 2 });
    expect(r.success).toBe(false);
    expect(r.error?.issues.map((i) => [i.path.join("."), i.message])).toEqual([
      [
        "concurrencyLimit",
        "is not a task's: set it with defineAgent's concurrency option or the agent's policy row",
      ],
    ]);
    expect(taskPolicySchema.safeParse({ maxAttempts: 3 }).success).toBe(true);
  });
});
