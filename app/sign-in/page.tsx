import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { readTheme } from "../../components/theme/read-theme";
import { ThemeToggle } from "../../components/theme/theme-toggle";
import { ssoEnabled } from "../../lib/auth/auth";
import { currentViewer, safeNext } from "../../lib/auth/page";
import { SignInForm } from "./sign-in-form";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Sign in" };

/** Fixed texts for a refused single sign-on (never the raw query text). */
const SSO_ERRORS: Record<string, string> = {
  no_role:
    "Your single sign-on account is in no group that has a role here. Ask an admin to add you to one.",
  account_disabled: "This account is disabled. Ask an admin to enable it.",
  account_not_linked:
    "An account with this email exists but your identity provider did not verify the email, so it was not linked.",
  other: "Single sign-on did not complete. Try again, or sign in with your password.",
};

export default async function SignInPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const params = await searchParams;
  const next = safeNext(params.next);
  const ssoError =
    typeof params.error === "string" ? (SSO_ERRORS[params.error] ?? SSO_ERRORS.other) : null;
  if (await currentViewer()) redirect(next);
  return (
    <main className="grid min-h-dvh place-items-center bg-slate-50 px-4">
      <div className="w-full max-w-sm">
        <div className="mb-6 flex items-center gap-2">
          <span
            aria-hidden="true"
            className="palette-fixed grid size-8 place-items-center rounded-md bg-sky-500 font-mono text-sm font-bold text-slate-950"
          >
            AL
          </span>
          <span className="text-lg font-semibold tracking-tight text-slate-900">Agent Ledger</span>
        </div>
        <div className="rounded-lg border border-slate-200 bg-white p-6 shadow-sm">
          <h1 className="text-xl font-semibold text-slate-900">Sign in</h1>
          <p className="mt-1 text-sm text-slate-600">
            Accounts are created by an admin. Ask yours if you have none.
          </p>
          {ssoError ? (
            <p role="alert" className="mt-4 rounded-md bg-rose-50 px-3 py-2 text-sm text-rose-800">
              {ssoError}
            </p>
          ) : null}
          <SignInForm next={next} sso={ssoEnabled()} />
        </div>
        <ThemeToggle initial={await readTheme()} tone="page" className="mt-6" />
      </div>
    </main>
  );
}
