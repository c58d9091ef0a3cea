"use client";
// A dashboard screen's live data: seeded from what the server rendered (no flash, no second
// request on load), re-read from GET /api/screens/<screen> every few seconds while the tab is
// visible (react-query pauses interval polling in a hidden tab and refetches on focus), and at
// once after an action (useReview invalidates every live query). Rows keep their React keys,
// so a changed row updates in place and the reviewer's scroll, selection and dialogs stay.
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";

/** How often a visible screen re-reads its data. */
export const LIVE_INTERVAL_MS = 4000;

export class LiveError extends Error {
  override name = "LiveError";
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The search params of a screen as the page parsed them: only set values, as strings. */
export type ScreenParams = Record<string, string | number | boolean | null | undefined>;

export function screenUrl(screen: string, params: ScreenParams = {}): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== "") query.set(name, String(value));
  }
  const text = query.toString();
  return `/api/screens/${screen}${text ? `?${text}` : ""}`;
}

async function readScreen<T>(url: string, signal: AbortSignal): Promise<T> {
  const response = await fetch(url, {
    signal,
    cache: "no-store",
    headers: { accept: "application/json" },
  });
  if (!response.ok) {
    let detail = response.statusText;
    try {
      const body: unknown = await response.json();
      if (
        typeof body === "object" &&
        body !== null &&
        "detail" in body &&
        typeof body.detail === "string"
      ) {
        detail = body.detail;
      }
    } catch {
      // Not problem+json (a proxy's page): the status text says enough.
    }
    throw new LiveError(response.status, detail);
  }
  // Our own route answering our own DTO from the same build.
  return (await response.json()) as T;
}

export function useLiveQuery<T>({
  screen,
  params = {},
  initialData,
  intervalMs = LIVE_INTERVAL_MS,
}: {
  /** The route under /api/screens/. */
  screen: string;
  params?: ScreenParams;
  /** What the server rendered: the query starts from it. */
  initialData: T;
  intervalMs?: number;
}) {
  const url = screenUrl(screen, params);
  const client = useQueryClient();
  // The server render is as fresh as the request that made it.
  const [renderedAt] = useState(() => Date.now());
  // A new server render of the same screen (router.refresh(), "Reload the task") is newer than
  // whatever the cache holds: it replaces it, rather than waiting for the next poll.
  const rendered = useRef(initialData);
  useEffect(() => {
    if (rendered.current === initialData) return;
    rendered.current = initialData;
    client.setQueryData(["screen", url], initialData);
  }, [client, url, initialData]);
  const query = useQuery({
    queryKey: ["screen", url],
    queryFn: ({ signal }) => readScreen<T>(url, signal),
    initialData,
    initialDataUpdatedAt: renderedAt,
    refetchInterval: intervalMs,
    refetchIntervalInBackground: false,
  });
  // Seeded, the query always has data; TypeScript cannot see that through a generic T.
  return { ...query, data: query.data ?? initialData };
}
