"use server";
// Admin actions on API tokens: create (the secret is returned here once and never again) and
// revoke. Session → tokens:manage → zod → command; the command records a `system` ledger entry.
import { revalidatePath } from "next/cache";
import { z } from "zod";
import { defineAction, fromCommand } from "../auth/guard";
import { principalOf } from "../domain/access";
import { createApiToken, newTokenSchema, revokeApiToken } from "../server/commands/api-tokens";
import { getPool } from "../server/db";

const TOKENS_PAGE = "/settings/tokens";

export const createTokenAction = defineAction({
  name: "createTokenAction",
  scope: "tokens:manage",
  input: z.object({
    name: newTokenSchema.shape.name,
    // Checkboxes arrive as a list; a script may send "a,b".
    scopes: z.preprocess(
      (v) =>
        typeof v === "string"
          ? v
              .split(",")
              .map((s) => s.trim())
              .filter(Boolean)
          : (v ?? []),
      newTokenSchema.shape.scopes,
    ),
  }),
  run: async (input, viewer) => {
    const result = await createApiToken(getPool(), principalOf(viewer), input);
    if (!result.ok && result.code === "conflict") {
      return { ok: false, status: 409, error: result.message, fields: { name: result.message } };
    }
    if (result.ok) revalidatePath(TOKENS_PAGE);
    return fromCommand(result);
  },
});

export const revokeTokenAction = defineAction({
  name: "revokeTokenAction",
  scope: "tokens:manage",
  input: z.object({ tokenId: z.string().trim().min(1, "choose a token").max(200) }),
  run: async (input, viewer) => {
    const result = await revokeApiToken(getPool(), principalOf(viewer), input);
    if (result.ok) revalidatePath(TOKENS_PAGE);
    return fromCommand(result);
  },
});
