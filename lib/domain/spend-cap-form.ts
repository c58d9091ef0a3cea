// An agent's daily spend budget (spend_caps) as the policies screen's form sends it, what the
// command takes from any caller, and how a change reads in the ledger and the change history.
// Amounts are in the same unit as model call costs (tasks.cost), shown with a dollar sign.
import { z } from "zod";
import { formatCostUsd } from "./money";
import { blank, grouped, number } from "./policy-form";

export const BUDGET_SCOPE_PREFIX = "budget:";
export const SPEND_CAP_MAX = 1_000_000;
export const ON_EXCEED = ["wait", "dead"] as const;
export type OnExceed = (typeof ON_EXCEED)[number];

/** A dot path into a task's input: `customerId`, `customer.id`. */
export const keyPathSchema = z
  .string()
  .trim()
  .max(200, "must be at most 200 characters")
  .regex(
    /^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)*$/,
    "must be a dot path into the task input, such as customerId or customer.id",
  );

const amount = number(
  z
    .number()
    .gt(0, "must be more than 0")
    .max(SPEND_CAP_MAX, `must be at most ${grouped.format(SPEND_CAP_MAX)}`),
);

/** The budget itself; null clears the agent's cap. */
export const spendCapSchema = z
  .object({
    dailyLimit: z.number().gt(0).max(SPEND_CAP_MAX).nullable(),
    keyPath: keyPathSchema.nullable(),
    keyDailyLimit: z.number().gt(0).max(SPEND_CAP_MAX).nullable(),
    onExceed: z.enum(ON_EXCEED),
  })
  .refine((c) => (c.keyPath === null) === (c.keyDailyLimit === null), {
    message: "a per-key budget needs both a key path and an amount",
    path: ["keyDailyLimit"],
  });

export type SpendCap = z.output<typeof spendCapSchema>;

/** What the form parses to, and what the command takes from any caller. */
export const spendCapInputSchema = z.object({
  agent: z.string().trim().min(1).max(200),
  /** The version of the agent's cap as loaded; null when it had none. */
  version: z.number().int().min(1).nullable(),
  cap: spendCapSchema.nullable(),
});

export type SpendCapInput = z.output<typeof spendCapInputSchema>;

export const spendCapFormSchema = z
  .object({
    agent: z.string({ message: "is required" }).trim().min(1, "is required").max(200),
    version: z.preprocess(
      blank,
      number(z.number().int("must be a whole number").min(1, "must be at least 1"))
        .nullable()
        .default(null),
    ),
    dailyLimit: z.preprocess(blank, amount.optional()),
    keyPath: z.preprocess(blank, keyPathSchema.optional()),
    keyDailyLimit: z.preprocess(blank, amount.optional()),
    onExceed: z.enum(ON_EXCEED, { message: "must be wait or dead" }).default("wait"),
  })
  .superRefine((v, ctx) => {
    // Half a per-key budget is a typo, not a wish to clear it.
    if (v.keyPath !== undefined && v.keyDailyLimit === undefined) {
      ctx.addIssue({ code: "custom", path: ["keyDailyLimit"], message: "is required with a key" });
    }
    if (v.keyDailyLimit !== undefined && v.keyPath === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["keyPath"],
        message: "is required with a per-key budget",
      });
    }
  })
  .transform(
    (v): SpendCapInput => ({
      agent: v.agent,
      version: v.version,
      // Every amount empty clears the cap.
      cap:
        v.dailyLimit === undefined && v.keyDailyLimit === undefined
          ? null
          : {
              dailyLimit: v.dailyLimit ?? null,
              keyPath: v.keyPath ?? null,
              keyDailyLimit: v.keyDailyLimit ?? null,
              onExceed: v.onExceed,
            },
    }),
  );

export type SpendCapFormInput = z.input<typeof spendCapFormSchema>;

/** "$5.00 a day, $1.00 per customerId, then wait" — or "No budget". */
export function describeSpendCap(cap: SpendCap | null): string {
  if (!cap) return "No budget";
  const parts = [
    cap.dailyLimit === null ? null : `${formatCostUsd(cap.dailyLimit)} a day`,
    cap.keyPath === null || cap.keyDailyLimit === null
      ? null
      : `${formatCostUsd(cap.keyDailyLimit)} per ${cap.keyPath}`,
  ].filter((p) => p !== null);
  return `${parts.join(", ")}, then ${cap.onExceed === "wait" ? "wait" : "dead-letter"}`;
}

/** A `policy.changed` entry for an agent's daily budget: before and after (null: none). */
export const spendCapChangeSchema = z.object({
  scope: z.string().startsWith(BUDGET_SCOPE_PREFIX),
  before: spendCapSchema.nullable(),
  after: spendCapSchema.nullable(),
  /** Tasks waiting on the budget that a raise or a clear sent back to the queue. */
  woken: z.number().int().min(0).optional(),
});

export type SpendCapChange = z.infer<typeof spendCapChangeSchema>;

export function spendCapChangeSides(c: SpendCapChange): { before: string; after: string } {
  return { before: describeSpendCap(c.before), after: describeSpendCap(c.after) };
}

/** "Daily budget No budget → $5.00 a day, then wait" (the entry names the scope). */
export function describeSpendCapChange(c: SpendCapChange): string {
  const { before, after } = spendCapChangeSides(c);
  const woken = c.woken ? ` (${c.woken} waiting task(s) run again)` : "";
  return `Daily budget ${before} → ${after}${woken}`;
}
