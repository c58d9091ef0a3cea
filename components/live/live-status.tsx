"use client";
// "Live · updated 3 s ago": when the screen last heard from the server, that it keeps listening
// only while the tab is visible, and what went wrong when a refresh failed (it keeps retrying).
// Not a live region: a line that changes every second must not talk over a screen reader.
import { useEffect, useState } from "react";

function ago(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s ago`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m} min ago` : `${Math.floor(m / 60)} h ago`;
}

export function LiveStatus({
  updatedAt,
  fetching,
  error,
  onRefresh,
}: {
  /** ms since the epoch of the last successful read (react-query's dataUpdatedAt). */
  updatedAt: number;
  fetching: boolean;
  error: Error | null;
  onRefresh: () => void;
}) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  return (
    <p
      className="flex flex-wrap items-center gap-2 text-xs text-slate-600"
      data-testid="live-status"
    >
      <span
        aria-hidden="true"
        className={`inline-block size-2 rounded-full ${error ? "bg-amber-500" : "bg-emerald-500"} ${fetching ? "animate-pulse" : ""}`}
      />
      <span>
        {error ? `Could not refresh (${error.message}); retrying. ` : "Live · "}
        updated {ago(now - updatedAt)}
      </span>
      <button
        type="button"
        onClick={onRefresh}
        className="rounded px-1 font-medium text-sky-800 underline-offset-2 hover:underline focus-visible:outline-2 focus-visible:outline-sky-500"
      >
        Refresh now
      </button>
    </p>
  );
}
