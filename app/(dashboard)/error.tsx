"use client";
// Shown inside the shell when a screen fails to load (most often: the database is down), so
// the navigation stays usable and the reader is told what to do.
import { Notice } from "../../components/ui/notice";

export default function DashboardError({ error, retry }: { error: unknown; retry: () => void }) {
  const digest =
    typeof error === "object" &&
    error !== null &&
    "digest" in error &&
    typeof error.digest === "string"
      ? error.digest
      : null;
  return (
    <div className="max-w-2xl space-y-4">
      <h1 className="text-2xl font-semibold tracking-tight text-slate-900">
        This page could not load
      </h1>
      <Notice tone="error" title="The dashboard could not read what this page shows.">
        <p>
          The database may be unreachable. Check{" "}
          <a className="underline" href="/api/health">
            /api/health
          </a>
          , then try again.
          {digest ? ` Reference for the server log: ${digest}.` : null}
        </p>
      </Notice>
      <button
        type="button"
        onClick={() => retry()}
        className="rounded-md bg-slate-900 px-4 py-2 text-sm font-medium text-white hover:bg-slate-700"
      >
        Try again
      </button>
    </div>
  );
}
