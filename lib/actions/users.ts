"use server";
// Admin actions on people: add, change role, disable or enable. Each goes through the one
// chain (session → users:manage → zod → command) and the command records a `system` ledger
// entry with the admin as actor.
import { revalidatePath } from "next/cache";
import { z } from "zod";
import { defineAction, fromCommand } from "../auth/guard";
import { principalOf } from "../domain/access";
import {
  createUser,
  emailSchema,
  passwordSchema,
  roleSchema,
  setUserDisabled,
  setUserRole,
} from "../server/commands/users";
import { getPool } from "../server/db";

const USERS_PAGE = "/settings/users";

/** An empty optional text field arrives from a form as "": treat it as absent. */
const blankAsAbsent = (value: unknown) =>
  typeof value === "string" && value.trim() === "" ? undefined : value;

const userId = z.string().trim().min(1, "choose a user").max(200);

export const createUserAction = defineAction({
  name: "createUserAction",
  scope: "users:manage",
  input: z.object({
    email: emailSchema,
    name: z.preprocess(
      blankAsAbsent,
      z.string().trim().max(120, "must be at most 120 characters").optional(),
    ),
    role: roleSchema,
    password: passwordSchema,
  }),
  run: async (input, viewer) => {
    const result = await createUser(getPool(), principalOf(viewer), input);
    if (!result.ok && result.code === "conflict") {
      return { ok: false, status: 409, error: result.message, fields: { email: result.message } };
    }
    if (result.ok) revalidatePath(USERS_PAGE);
    return fromCommand(result);
  },
});

export const setUserRoleAction = defineAction({
  name: "setUserRoleAction",
  scope: "users:manage",
  input: z.object({ userId, role: roleSchema }),
  run: async (input, viewer) => {
    // Another admin changes yours: nobody demotes themselves out of this page by a slip.
    if (viewer.kind === "user" && viewer.id === input.userId) {
      return {
        ok: false,
        status: 409,
        error: "You cannot change your own role; ask another admin.",
        fields: { role: "you cannot change your own role" },
      };
    }
    const result = await setUserRole(getPool(), principalOf(viewer), input);
    if (result.ok) revalidatePath(USERS_PAGE);
    return fromCommand(result);
  },
});

export const setUserDisabledAction = defineAction({
  name: "setUserDisabledAction",
  scope: "users:manage",
  input: z.object({
    userId,
    disabled: z.preprocess(
      (v) => (v === "true" ? true : v === "false" ? false : v),
      z.boolean({ message: "must be true or false" }),
    ),
  }),
  run: async (input, viewer) => {
    if (input.disabled && viewer.kind === "user" && viewer.id === input.userId) {
      return {
        ok: false,
        status: 409,
        error: "You cannot disable your own account; ask another admin.",
      };
    }
    const result = await setUserDisabled(getPool(), principalOf(viewer), input);
    if (result.ok) revalidatePath(USERS_PAGE);
    return fromCommand(result);
  },
});
