// The fields the review actions share, parsed (zod) the same way in each: a task id, the
// version the page showed, where a replay starts, an effect key, an optional note, JSON text the
// ledger can store. Not a "use server" file: such a file may export only actions.
import { z } from "zod";
import { canonicalJson, type JsonValue, toJsonValue } from "../domain/json";

/** An empty optional text field arrives from a form as "": treat it as absent. */
export const blankAsAbsent = (value: unknown) =>
  typeof value === "string" && value.trim() === "" ? undefined : value;

export const taskId = z
  .string({ message: "is required" })
  .trim()
  .toLowerCase()
  .pipe(z.uuid({ message: "must be a task id (a UUID)" }));

export const version = z.coerce
  .number({ message: "must be a number" })
  .int("must be a whole number")
  .min(1, "must be at least 1")
  .max(2_147_483_647, "is too large");

export const fromStep = z.coerce
  .number({ message: "must be a number" })
  .int("must be a whole number")
  .min(1, "must be at least 1")
  .max(100_000, "is past any journal");

export const effectKey = z
  .string({ message: "is required" })
  .regex(/^[0-9a-f]{64}$/, "must be an effect key (64 hex digits)");

/** Free text a person may leave blank (a note, a reason, an id): blank is absent. */
export function optionalText(maxChars: number) {
  return z.preprocess(
    blankAsAbsent,
    z.string().trim().max(maxChars, `must be at most ${maxChars} characters`).optional(),
  );
}

export const note = optionalText(1000);

/** JSON text as a reviewer typed or pasted it, at most `maxBytes` of canonical JSON. */
export function jsonText(maxBytes: number, what: string) {
  const tooLarge = `must be at most ${maxBytes / 1024} KB`;
  return z
    .string({ message: "is required" })
    .max(maxBytes, tooLarge)
    .transform((text, ctx): JsonValue => {
      try {
        const value = toJsonValue(JSON.parse(text), what);
        if (Buffer.byteLength(canonicalJson(value)) > maxBytes) {
          ctx.addIssue({ code: "custom", message: tooLarge });
          return z.NEVER;
        }
        return value;
      } catch (error) {
        ctx.addIssue({
          code: "custom",
          message: `is not valid JSON (${error instanceof Error ? error.message : "unreadable"})`,
        });
        return z.NEVER;
      }
    });
}
