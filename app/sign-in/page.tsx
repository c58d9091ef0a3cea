import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { ssoEnabled } from "../../lib/auth/auth";
import { currentViewer, safeNext } from "../../lib/auth/page";
import { SignInForm } from "./sign-in-form";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Sign in" };

export default async function SignInPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const next = safeNext((await searchParams).next);
  if (await currentViewer()) redirect(next);
  return (
    <main className="grid min-h-dvh place-items-center bg-slate-50 px-4">
      <div className="w-full max-w-sm">
        <div className="mb-6 flex items-center gap-2">
          <span
            aria-hidden="true"
            className="grid size-8 place-items-center rounded-md bg-sky-500 font-mono text-sm font-bold text-slate-950"
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
          <SignInForm next={next} sso={ssoEnabled()} />
        </div>
      </div>
    </main>
  );
}
