// An admin's rate limit for one tool as the policies screen's form sends it: calls and a period
// in seconds, both empty to clear it (the code's limit, if any, applies again). Parsed once here
// into the domain's limit (milliseconds), with errors in the form's units.
import { z } from "zod";
import { blank, grouped, number } from "./policy-form";
import { type RateLimitSpec, rateLimitSchema } from "./rate-limit";

const { limit, periodMs } = rateLimitSchema.shape;
const LIMIT = { min: limit.minValue ?? 1, max: limit.maxValue ?? 10_000 };
const PERIOD = { min: periodMs.minValue ?? 1, max: periodMs.maxValue ?? 86_400_000 };

export const toolLimitFormSchema = z
  .object({
    tool: z.string({ message: "is required" }).trim().min(1, "is required").max(200),
    /** The version of the admin's limit as loaded; blank when the tool had none. */
    version: z.preprocess(
      blank,
      number(z.number().int("must be a whole number").min(1, "must be at least 1"))
        .nullable()
        .default(null),
    ),
    limit: z.preprocess(
      blank,
      number(
        z
          .number()
          .int("must be a whole number")
          .min(LIMIT.min, `must be at least ${LIMIT.min}`)
          .max(LIMIT.max, `must be at most ${grouped.format(LIMIT.max)}`),
      ).optional(),
    ),
    periodSeconds: z.preprocess(
      blank,
      number(
        z
          .number()
          .min(PERIOD.min / 1_000, {
            error: `must be at least ${grouped.format(PERIOD.min / 1_000)} s`,
            abort: true,
          })
          .max(PERIOD.max / 1_000, {
            error: `must be at most ${grouped.format(PERIOD.max / 1_000)} s`,
            abort: true,
          })
          .refine(
            (s) => Math.abs(s * 1_000 - Math.round(s * 1_000)) < 1e-6,
            "must have at most 3 decimals (whole milliseconds)",
          )
          .transform((s) => Math.round(s * 1_000)),
      ).optional(),
    ),
  })
  .superRefine((v, ctx) => {
    // Both or neither: half a limit is a typo, not a wish to clear it.
    if (v.limit === undefined && v.periodSeconds !== undefined) {
      ctx.addIssue({ code: "custom", path: ["limit"], message: "is required with a period" });
    }
    if (v.periodSeconds === undefined && v.limit !== undefined) {
      ctx.addIssue({ code: "custom", path: ["periodSeconds"], message: "is required with calls" });
    }
  })
  .transform(
    (v): ToolLimitInput => ({
      tool: v.tool,
      version: v.version,
      limit:
        v.limit === undefined || v.periodSeconds === undefined
          ? null
          : ({ limit: v.limit, periodMs: v.periodSeconds } satisfies RateLimitSpec),
    }),
  );

export type ToolLimitFormInput = z.input<typeof toolLimitFormSchema>;

/** What the form parses to, and what the command takes from any caller: milliseconds. */
export const toolLimitInputSchema = z.object({
  tool: z.string().trim().min(1).max(200),
  version: z.number().int().min(1).nullable(),
  /** Null clears the admin's limit. */
  limit: rateLimitSchema.nullable(),
});

export type ToolLimitInput = z.output<typeof toolLimitInputSchema>;
