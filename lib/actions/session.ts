"use server";
// Signing in and out. Sign-in is the one action anyone may call; it goes through the same
// lock and checks as POST /api/auth/sign-in/email.
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { getAuth, ssoEnabled, startSsoSignIn } from "../auth/auth";
import { toPlain } from "../auth/guard";
import { safeNext } from "../auth/page";
import { signInWithPassword } from "../auth/sign-in";
import { viewerFromSession } from "../auth/viewer";

export type SignInState = { error?: string; email?: string } | undefined;

export async function signIn(_previous: SignInState, form: unknown): Promise<SignInState> {
  const raw = toPlain(form) as Record<string, unknown> | undefined;
  const result = await signInWithPassword(
    { email: raw?.email, password: raw?.password },
    await headers(),
  );
  if (!result.ok) {
    return { error: result.message, email: typeof raw?.email === "string" ? raw.email : undefined };
  }
  redirect(safeNext(raw?.next));
}

export async function signInWithSso(form: unknown): Promise<void> {
  if (!ssoEnabled()) redirect("/sign-in");
  const raw = toPlain(form) as Record<string, unknown> | undefined;
  redirect(await startSsoSignIn(safeNext(raw?.next), await headers()));
}

/** Ends this session in the database (the cookie alone is worthless after). */
export async function signOut(): Promise<void> {
  const h = await headers();
  if (await viewerFromSession(h)) await getAuth().api.signOut({ headers: h });
  redirect("/sign-in");
}
