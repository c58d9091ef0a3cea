"use server";
// Changing a retry policy (admins): session → policies:write → zod → set-policy, on the version
// the admin loaded. The command records before, after and who in the system stream.
import { z } from "zod";
import { defineAction, fromCommand } from "../auth/guard";
import { principalOf } from "../domain/access";
import { type PartialRetryPolicy, retryPolicySchema } from "../domain/retry-policy";
import { setPolicy } from "../server/commands/set-policy";
import { getPool } from "../server/db";

/** An empty field arrives from a form as "": the level does not set it. */
const blank = (value: unknown) =>
  value === null || (typeof value === "string" && value.trim() === "") ? undefined : value;

const number = z.coerce.number({ message: "must be a number" });

/** Each field as the form sends it; the domain schema's bounds apply after. */
const field = <T extends z.ZodType>(schema: T) => z.preprocess(blank, schema.optional());

/** Fields the global row must set (an empty budget there means unlimited). */
const FLOOR_FIELDS = [
  "maxAttempts",
  "backoffInitialMs",
  "backoffFactor",
  "backoffMaxMs",
  "attemptTimeoutMs",
] as const;

export const setPolicyAction = defineAction({
  name: "setPolicyAction",
  scope: "policies:write",
  input: z
    .object({
      scope: z
        .string({ message: "is required" })
        .trim()
        .regex(/^(global|agent:[a-z][a-z0-9-]*)$/, 'must be "global" or "agent:<name>"'),
      /** The version the admin loaded; blank when there was no row for this scope. */
      version: z.preprocess(
        blank,
        number.int("must be a whole number").min(1, "must be at least 1").nullable().default(null),
      ),
      maxAttempts: field(number.pipe(retryPolicySchema.shape.maxAttempts)),
      backoffInitialMs: field(number.pipe(retryPolicySchema.shape.backoffInitialMs)),
      backoffFactor: field(number.pipe(retryPolicySchema.shape.backoffFactor)),
      backoffMaxMs: field(number.pipe(retryPolicySchema.shape.backoffMaxMs)),
      attemptTimeoutMs: field(number.pipe(retryPolicySchema.shape.attemptTimeoutMs)),
      budget: field(number.pipe(z.number().min(0, "must be 0 or more"))),
    })
    .superRefine((v, ctx) => {
      if (v.scope !== "global") return;
      for (const key of FLOOR_FIELDS) {
        if (v[key] === undefined) {
          ctx.addIssue({
            code: "custom",
            path: [key],
            message: "the global policy sets every field",
          });
        }
      }
    }),
  run: async ({ scope, version, ...fields }, viewer) => {
    const policy: PartialRetryPolicy = Object.fromEntries(
      Object.entries(fields).filter(([, v]) => v !== undefined),
    );
    // The global row is the floor of the chain: an empty budget there means unlimited.
    if (scope === "global" && fields.budget === undefined) policy.budget = null;
    return fromCommand(await setPolicy(getPool(), principalOf(viewer), { scope, policy, version }));
  },
});
