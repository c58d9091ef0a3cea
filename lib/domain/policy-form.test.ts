import { describe, expect, it } from "vitest";
import { type PolicyFormInput, policyFormSchema } from "./policy-form";

const parse = (input: PolicyFormInput) => policyFormSchema.safeParse(input);
const errors = (input: PolicyFormInput) => {
  const r = parse(input);
  if (r.success) throw new Error(`expected a refusal, parsed ${JSON.stringify(r.data)}`);
  return Object.fromEntries(r.error.issues.map((i) => [i.path.join("."), i.message]));
};

describe("policyFormSchema", () => {
  it("takes durations in seconds and hands the command milliseconds; empty fields are not set", () => {
    const r = parse({
      scope: "agent:refund",
      version: "",
      maxAttempts: "3",
      backoffInitialSeconds: "0.5",
      backoffFactor: "",
      backoffMaxSeconds: "600",
      attemptTimeoutSeconds: " ",
      budget: "",
    });
    expect(r.success && r.data).toEqual({
      scope: "agent:refund",
      version: null,
      policy: { maxAttempts: 3, backoffInitialMs: 500, backoffMaxMs: 600_000 },
    });
  });

  it("takes an agent's concurrency limit as a whole number of tasks, never on the global row", () => {
    const r = parse({ scope: "agent:refund", version: "2", concurrencyLimit: "4" });
    expect(r.success && r.data.policy).toEqual({ concurrencyLimit: 4 });
    expect(errors({ scope: "agent:refund", concurrencyLimit: "1.5" })).toEqual({
      concurrencyLimit: "must be a whole number",
    });
    expect(errors({ scope: "agent:refund", concurrencyLimit: "0" })).toEqual({
      concurrencyLimit: "must be at least 1",
    });
    expect(errors({ scope: "agent:refund", concurrencyLimit: "10001" })).toEqual({
      concurrencyLimit: "must be at most 10,000",
    });
    expect(
      errors({
        scope: "global",
        maxAttempts: "5",
        backoffInitialSeconds: "1",
        backoffFactor: "2",
        backoffMaxSeconds: "60",
        attemptTimeoutSeconds: "60",
        concurrencyLimit: "3",
      }),
    ).toEqual({ concurrencyLimit: "is set per agent (its code or its row), not globally" });
  });

  it("makes an empty global budget unlimited and requires the global row's other fields", () => {
    const full = {
      scope: "global",
      version: "4",
      maxAttempts: "5",
      backoffInitialSeconds: "1",
      backoffFactor: "2",
      backoffMaxSeconds: "60",
      attemptTimeoutSeconds: "60",
      budget: "",
    };
    const r = parse(full);
    expect(r.success && r.data).toEqual({
      scope: "global",
      version: 4,
      policy: {
        maxAttempts: 5,
        backoffInitialMs: 1_000,
        backoffFactor: 2,
        backoffMaxMs: 60_000,
        attemptTimeoutMs: 60_000,
        budget: null,
      },
    });
    expect(errors({ ...full, backoffMaxSeconds: "" })).toEqual({
      backoffMaxSeconds: "the global policy sets every field",
    });
  });

  it("words every refusal in the form's units", () => {
    expect(
      errors({
        scope: "agent:refund",
        maxAttempts: "2.5",
        backoffInitialSeconds: "-1",
        backoffFactor: "0.5",
        backoffMaxSeconds: "604801",
        attemptTimeoutSeconds: "0",
        budget: "lots",
      }),
    ).toEqual({
      maxAttempts: "must be a whole number",
      backoffInitialSeconds: "must be at least 0 s",
      backoffFactor: "must be at least 1",
      backoffMaxSeconds: "must be at most 604,800 s",
      attemptTimeoutSeconds: "must be at least 0.001 s",
      budget: "must be a number, such as 2 or 0.5",
    });
    expect(errors({ scope: "agent:refund", backoffInitialSeconds: "1.2345" })).toEqual({
      backoffInitialSeconds: "must have at most 3 decimals (whole milliseconds)",
    });
    expect(errors({ scope: "agent:Refund!" })).toEqual({
      scope: 'must be "global" or "agent:<name>"',
    });
  });

  it("refuses numbers too large to hold in each field's own words, never as an empty field", () => {
    const digits400 = `1${"0".repeat(399)}`;
    expect(
      errors({
        scope: "agent:refund",
        maxAttempts: digits400,
        backoffInitialSeconds: "1e309",
        backoffFactor: "1e309",
        backoffMaxSeconds: "-1e309",
        attemptTimeoutSeconds: digits400,
        budget: "1e309",
      }),
    ).toEqual({
      maxAttempts: "must be at most 1,000",
      backoffInitialSeconds: "must be at most 86,400 s",
      backoffFactor: "must be at most 100",
      backoffMaxSeconds: "must be at least 0 s",
      attemptTimeoutSeconds: "must be at most 86,400 s",
      budget: "must be at most 1,000,000",
    });
    // The attempt timeout is a setTimeout: past 2^31-1 ms it would fire at once.
    expect(errors({ scope: "agent:refund", attemptTimeoutSeconds: "2147484" })).toEqual({
      attemptTimeoutSeconds: "must be at most 86,400 s",
    });
  });

  it("refuses negatives, NaN, Infinity and what is not decimal notation", () => {
    expect(
      errors({
        scope: "agent:refund",
        maxAttempts: "-3",
        backoffInitialSeconds: "NaN",
        backoffFactor: "Infinity",
        backoffMaxSeconds: "0x10",
        attemptTimeoutSeconds: "-0.5",
        budget: "-1",
      }),
    ).toEqual({
      maxAttempts: "must be at least 1",
      backoffInitialSeconds: "must be a number, such as 2 or 0.5",
      backoffFactor: "must be a number, such as 2 or 0.5",
      backoffMaxSeconds: "must be a number, such as 2 or 0.5",
      attemptTimeoutSeconds: "must be at least 0.001 s",
      budget: "must be at least 0",
    });
    expect(errors({ scope: "agent:refund", budget: Number.NaN } as PolicyFormInput)).toEqual({
      budget: "must be a number, such as 2 or 0.5",
    });
  });

  it("takes exponent notation within bounds", () => {
    const r = parse({
      scope: "agent:refund",
      backoffFactor: "1.5e1",
      attemptTimeoutSeconds: "1e3",
    });
    expect(r.success && r.data.policy).toEqual({ backoffFactor: 15, attemptTimeoutMs: 1_000_000 });
  });
});
