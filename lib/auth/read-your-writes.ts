// Read-your-writes with a replica: a server action leaves a short-lived cookie, and while it
// lasts that person's pages and live screens read the primary (lib/server/db.ts screenReaders).
// Without DATABASE_READ_URL there is one database and nothing to do.
import { cookies } from "next/headers";
import { cache } from "react";
import {
  READ_YOUR_WRITES_SECONDS,
  type Readers,
  readReplicaConfigured,
  screenReaders,
  WROTE_COOKIE,
} from "../server/db";

export async function markWrote(): Promise<void> {
  if (!readReplicaConfigured()) return;
  // It carries nothing but its presence; Secure is not needed for a cookie worth nothing.
  (await cookies()).set(WROTE_COOKIE, "1", {
    maxAge: READ_YOUR_WRITES_SECONDS,
    httpOnly: true,
    sameSite: "lax",
    path: "/",
  });
}

/**
 * Where a server component reads: one choice per render (the layout and the page both ask).
 * cookies(), not the Cookie header: the render Next does in an action's own response (setting a
 * cookie triggers it) already sees the cookie the action set.
 */
export const pageReaders = cache(
  async (): Promise<Readers> => screenReaders((await cookies()).has(WROTE_COOKIE)),
);
