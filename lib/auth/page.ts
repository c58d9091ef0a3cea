// For server components: the signed-in person, or a redirect to sign-in; without the scope the
// page answers 403. Each page calls this itself (layouts do not re-run on client navigation).
import { headers } from "next/headers";
import { forbidden, redirect } from "next/navigation";
import { cache } from "react";
import type { Scope, Viewer } from "../domain/access";
import { viewerFromSession } from "./viewer";

/** One session read per render: the layout and the page both ask. */
const renderViewer = cache(async (): Promise<Viewer | null> => viewerFromSession(await headers()));

export async function pageViewer(scope: Scope): Promise<Viewer> {
  const viewer = await renderViewer();
  if (!viewer) {
    const path = (await headers()).get("x-agent-ledger-path");
    redirect(path && path !== "/" ? `/sign-in?next=${encodeURIComponent(path)}` : "/sign-in");
  }
  if (!viewer.scopes.has(scope)) forbidden();
  return viewer;
}

/** The signed-in person for chrome (sidebar, user menu), or null. */
export async function currentViewer(): Promise<Viewer | null> {
  return renderViewer();
}

/** Only same-site paths may be a post-sign-in destination. */
export function safeNext(next: unknown): string {
  return typeof next === "string" && /^\/(?![/\\])[^\s]*$/.test(next) ? next : "/";
}
