// A model's price as the team sets it: in the worker's configuration (MODEL_PRICES) and, over
// that, by an admin on the policies screen. US dollars per million tokens, within the bounds the
// model_prices table checks. The form sends text, all three empty to clear the admin's price
// (the configured or shipped one applies again); parsed once here, with errors in its units.
import { z } from "zod";
import { blank, grouped, number } from "./policy-form";

/** The model_prices check: 0 to 100,000 US dollars per million tokens. */
export const MAX_PRICE_PER_MTOK = 100_000;

const perMTok = z
  .number({ message: "must be a number of US dollars per million tokens" })
  .min(0, "must be at least 0")
  .max(MAX_PRICE_PER_MTOK, `must be at most ${grouped.format(MAX_PRICE_PER_MTOK)}`);

/** One model's price: input, output and (optionally) cached input, per million tokens. */
export const modelPricingSchema = z
  .object({
    inputPerMTok: perMTok,
    outputPerMTok: perMTok,
    /** Absent: cached input costs what other input costs. */
    cachedInputPerMTok: perMTok.optional(),
  })
  .strict();

/** A model id as providers and gateways spell it ("gpt-4o", "openai/gpt-4o-mini"). */
export const modelIdSchema = z
  .string({ message: "is required" })
  .trim()
  .min(1, "is required")
  .max(200, "must be at most 200 characters");

const field = z.preprocess(blank, number(perMTok).optional());

export const modelPriceFormSchema = z
  .object({
    model: modelIdSchema,
    /** The version of the admin's price as loaded; blank when the model had none. */
    version: z.preprocess(
      blank,
      number(z.number().int("must be a whole number").min(1, "must be at least 1"))
        .nullable()
        .default(null),
    ),
    inputPerMTok: field,
    outputPerMTok: field,
    cachedInputPerMTok: field,
  })
  .superRefine((v, ctx) => {
    // Input and output or nothing: half a price is a typo, not a wish to clear it.
    const some = [v.inputPerMTok, v.outputPerMTok, v.cachedInputPerMTok].some(
      (p) => p !== undefined,
    );
    if (!some) return;
    for (const name of ["inputPerMTok", "outputPerMTok"] as const) {
      if (v[name] === undefined) {
        ctx.addIssue({ code: "custom", path: [name], message: "is required with a price" });
      }
    }
  })
  .transform(
    (v): ModelPriceInput => ({
      model: v.model,
      version: v.version,
      price:
        v.inputPerMTok === undefined || v.outputPerMTok === undefined
          ? null
          : {
              inputPerMTok: v.inputPerMTok,
              outputPerMTok: v.outputPerMTok,
              ...(v.cachedInputPerMTok === undefined
                ? {}
                : { cachedInputPerMTok: v.cachedInputPerMTok }),
            },
    }),
  );

export type ModelPriceFormInput = z.input<typeof modelPriceFormSchema>;

/** What the form parses to, and what the command takes from any caller. */
export const modelPriceInputSchema = z.object({
  model: modelIdSchema,
  version: z.number().int().min(1).nullable(),
  /** Null clears the admin's price. */
  price: modelPricingSchema.nullable(),
});

export type ModelPriceInput = z.output<typeof modelPriceInputSchema>;

/** "$2.50 in · $1.25 cached · $10 out per Mtok": a price as people read it. */
export function describePrice(p: {
  inputPerMTok: number;
  outputPerMTok: number;
  cachedInputPerMTok?: number | null;
}): string {
  const usd = (n: number) => `$${n}`;
  const cached =
    p.cachedInputPerMTok === undefined || p.cachedInputPerMTok === null
      ? ""
      : ` · ${usd(p.cachedInputPerMTok)} cached`;
  return `${usd(p.inputPerMTok)} in${cached} · ${usd(p.outputPerMTok)} out per Mtok`;
}

export const MODEL_SCOPE_PREFIX = "model:";

const changeSide = modelPricingSchema.nullable();

/**
 * A `policy.changed` entry for a model's price: the admin's price before and after (null: none,
 * the configured or shipped price applies) beside the shipped default (null: none ships).
 */
export const modelPriceChangeSchema = z.object({
  scope: z.string().startsWith(MODEL_SCOPE_PREFIX),
  before: changeSide,
  after: changeSide,
  default: changeSide,
});

export type ModelPriceChange = z.infer<typeof modelPriceChangeSchema>;

/** Both sides as people read them; a cleared side says what applies instead. */
export function modelPriceChangeSides(c: ModelPriceChange): { before: string; after: string } {
  const side = (admin: ModelPriceChange["before"]) => {
    if (admin) return describePrice(admin);
    return c.default
      ? `${describePrice(c.default)} (shipped default, unless configured)`
      : "configured price, else unpriced";
  };
  return { before: side(c.before), after: side(c.after) };
}

export function describeModelPriceChange(c: ModelPriceChange): string {
  const { before, after } = modelPriceChangeSides(c);
  return `Price ${before} → ${after}`;
}
