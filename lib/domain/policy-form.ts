// The retry-policy form as people fill it in: durations in seconds (the unit the policies screen
// shows), counts and factors as numbers, an empty field meaning "this level does not set it".
// Parsed once here into the domain's policy (milliseconds), with errors worded in the form's units.
import { z } from "zod";
import {
  type DURATION_FIELDS,
  type PartialRetryPolicy,
  POLICY_BOUNDS,
  POLICY_SCOPE,
  type PolicyField,
} from "./retry-policy";

/** The form's name for each policy field: durations carry their unit, seconds. */
export const FORM_FIELD = {
  maxAttempts: "maxAttempts",
  backoffInitialMs: "backoffInitialSeconds",
  backoffFactor: "backoffFactor",
  backoffMaxMs: "backoffMaxSeconds",
  attemptTimeoutMs: "attemptTimeoutSeconds",
  budget: "budget",
  concurrencyLimit: "concurrencyLimit",
} as const satisfies Record<PolicyField, string>;

/** An empty field arrives from a form as "": the level does not set it. */
export const blank = (value: unknown) =>
  value === null || value === undefined || (typeof value === "string" && value.trim() === "")
    ? undefined
    : value;

const NOT_A_NUMBER = "must be a number, such as 2 or 0.5";

/** Decimal notation, as people type numbers (no hex, no "Infinity", no "NaN"). */
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/**
 * The field's text as a number, then `schema`'s bounds. Text that is a number too large for a
 * double (1e309, a 400-digit timeout) parses to ±Infinity; it is handed on as the largest
 * double of its sign, so the field's own bound refuses it in the field's own words ("must be at
 * most 86,400 s") instead of letting it through or calling it "not a number".
 */
export const number = <T extends z.ZodType<unknown, number>>(schema: T) =>
  z
    .union([z.number(), z.string()], { error: NOT_A_NUMBER })
    .transform((v, ctx) => {
      const text = typeof v === "number" ? String(v) : v.trim();
      const n = Number(text);
      if (Number.isNaN(n) || (typeof v === "string" && !DECIMAL.test(text))) {
        ctx.addIssue({ code: "custom", message: NOT_A_NUMBER });
        return z.NEVER;
      }
      return Number.isFinite(n) ? n : Math.sign(n) * Number.MAX_VALUE;
    })
    .pipe(schema);

export const grouped = new Intl.NumberFormat("en-US", { maximumFractionDigits: 3 });

const whole = (field: "maxAttempts" | "concurrencyLimit") =>
  number(
    z
      .number()
      .int("must be a whole number")
      .min(POLICY_BOUNDS[field].min, `must be at least ${POLICY_BOUNDS[field].min}`)
      .max(POLICY_BOUNDS[field].max, `must be at most ${grouped.format(POLICY_BOUNDS[field].max)}`),
  );

const plain = (field: "backoffFactor" | "budget") => {
  const { min, max } = POLICY_BOUNDS[field];
  return number(
    z
      .number()
      .min(min, `must be at least ${grouped.format(min)}`)
      .max(max, `must be at most ${grouped.format(max)}`),
  );
};

/** Seconds in, milliseconds out; precise to the millisecond, like the column. */
const seconds = (field: (typeof DURATION_FIELDS)[number]) => {
  const { min, max } = POLICY_BOUNDS[field];
  return number(
    z
      .number()
      // A bound that fails is the whole answer: the decimals of 1e308 s are beside the point.
      .min(min / 1_000, { error: `must be at least ${grouped.format(min / 1_000)} s`, abort: true })
      .max(max / 1_000, { error: `must be at most ${grouped.format(max / 1_000)} s`, abort: true })
      .refine(
        (s) => Math.abs(s * 1_000 - Math.round(s * 1_000)) < 1e-6,
        "must have at most 3 decimals (whole milliseconds)",
      )
      .transform((s) => Math.round(s * 1_000)),
  );
};

const optional = <T extends z.ZodType>(schema: T) => z.preprocess(blank, schema.optional());

/** Fields the global row must set (an empty budget there means unlimited). */
const FLOOR_FIELDS = [
  "maxAttempts",
  "backoffInitialMs",
  "backoffFactor",
  "backoffMaxMs",
  "attemptTimeoutMs",
] as const satisfies readonly PolicyField[];

export const policyFormSchema = z
  .object({
    scope: z
      .string({ message: "is required" })
      .trim()
      .regex(POLICY_SCOPE, 'must be "global" or "agent:<name>"'),
    /** The version the admin loaded; blank when there was no row for this scope. */
    version: z.preprocess(
      blank,
      number(z.number().int("must be a whole number").min(1, "must be at least 1"))
        .nullable()
        .default(null),
    ),
    [FORM_FIELD.maxAttempts]: optional(whole("maxAttempts")),
    [FORM_FIELD.backoffInitialMs]: optional(seconds("backoffInitialMs")),
    [FORM_FIELD.backoffFactor]: optional(plain("backoffFactor")),
    [FORM_FIELD.backoffMaxMs]: optional(seconds("backoffMaxMs")),
    [FORM_FIELD.attemptTimeoutMs]: optional(seconds("attemptTimeoutMs")),
    [FORM_FIELD.budget]: optional(plain("budget")),
    [FORM_FIELD.concurrencyLimit]: optional(whole("concurrencyLimit")),
  })
  .superRefine((v, ctx) => {
    if (v.scope !== "global") return;
    if (v.concurrencyLimit !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: [FORM_FIELD.concurrencyLimit],
        message: "is set per agent (its code or its row), not globally",
      });
    }
    for (const field of FLOOR_FIELDS) {
      if (v[FORM_FIELD[field]] === undefined) {
        ctx.addIssue({
          code: "custom",
          path: [FORM_FIELD[field]],
          message: "the global policy sets every field",
        });
      }
    }
  })
  .transform((v) => {
    const policy: PartialRetryPolicy = {
      maxAttempts: v.maxAttempts,
      backoffInitialMs: v.backoffInitialSeconds,
      backoffFactor: v.backoffFactor,
      backoffMaxMs: v.backoffMaxSeconds,
      attemptTimeoutMs: v.attemptTimeoutSeconds,
      budget: v.budget,
      concurrencyLimit: v.concurrencyLimit,
    };
    const set = Object.fromEntries(
      Object.entries(policy).filter(([, value]) => value !== undefined),
    ) as PartialRetryPolicy;
    // The global row is the floor of the chain: an empty budget there means unlimited.
    if (v.scope === "global" && set.budget === undefined) set.budget = null;
    return { scope: v.scope, version: v.version, policy: set };
  });

export type PolicyFormInput = z.input<typeof policyFormSchema>;
