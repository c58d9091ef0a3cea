"use server";
// An admin lifts someone's sign-in lock from the users page (the owner slowed down by another
// person's guesses). Session → users:manage → zod → command; the command records
// `sign_in.unlocked` with the admin as actor.
import { z } from "zod";
import { defineAction, fromCommand } from "../auth/guard";
import { principalOf } from "../domain/access";
import { emailSchema, unlockSignIn } from "../server/commands/users";
import { getPool } from "../server/db";

export const unlockSignInAction = defineAction({
  name: "unlockSignInAction",
  scope: "users:manage",
  input: z.object({ email: emailSchema }),
  run: async (input, viewer) =>
    fromCommand(await unlockSignIn(getPool(), principalOf(viewer), { email: input.email })),
});
