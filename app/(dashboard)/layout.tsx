import Link from "next/link";
import type { ReactNode } from "react";
import { KeyboardShortcuts } from "../../components/keyboard/keyboard-shortcuts";
import { QueryProvider } from "../../components/live/query-provider";
import { CollapsibleSidebar } from "../../components/shell/collapsible-sidebar";
import { SidebarNav } from "../../components/shell/sidebar-nav";
import { UserMenu } from "../../components/shell/user-menu";
import { pageViewer } from "../../lib/auth/page";
import { pageReaders } from "../../lib/auth/read-your-writes";
import { countInbox } from "../../lib/server/queries/inbox-counts";

export const dynamic = "force-dynamic";

export default async function DashboardLayout({ children }: { children: ReactNode }) {
  // Chrome only: each page checks its own scope (layouts do not re-run on client navigation).
  // pageViewer keeps ?next= when it sends a stale or missing session to sign-in.
  const viewer = await pageViewer("tasks:read");
  if (viewer.kind !== "user") return null;
  // The sidebar's inbox count arrives with the page (indexed counts), then stays live.
  const inboxCounts = await countInbox((await pageReaders()).pool, viewer);
  // The sidebar is inside the provider too: its inbox count is a live query.
  return (
    <QueryProvider>
      <a
        href="#main"
        className="sr-only z-50 rounded-md bg-white px-4 py-2 font-medium text-slate-900 shadow focus:not-sr-only focus:fixed focus:top-3 focus:left-3"
      >
        Skip to main content
      </a>
      <div className="min-h-dvh lg:grid lg:grid-cols-[15rem_minmax(0,1fr)]">
        {/* The column carries the colour so it reaches the bottom of long pages; the header inside stays in view.
            Below lg it is a bar at the top that folds the navigation away (CollapsibleSidebar).
            palette-fixed: the sidebar is dark in both themes. */}
        <div className="palette-fixed bg-slate-900 max-lg:sticky max-lg:top-0 max-lg:z-40">
          <header className="text-slate-100 lg:sticky lg:top-0 lg:h-dvh lg:overflow-y-auto">
            <CollapsibleSidebar
              inboxCounts={inboxCounts}
              brand={
                <Link href="/" className="group flex items-center gap-2 rounded-md">
                  <span
                    aria-hidden="true"
                    className="grid size-7 place-items-center rounded-md bg-sky-500 font-mono text-sm font-bold text-slate-950"
                  >
                    AL
                  </span>
                  <span className="text-base font-semibold tracking-tight text-white group-hover:text-sky-200">
                    Agent Ledger
                  </span>
                </Link>
              }
            >
              <SidebarNav scopes={[...viewer.scopes]} inboxCounts={inboxCounts} />
              <UserMenu name={viewer.name} email={viewer.email} role={viewer.role} />
            </CollapsibleSidebar>
          </header>
        </div>
        <main
          id="main"
          tabIndex={-1}
          className="min-w-0 px-4 py-6 focus:outline-none sm:px-6 lg:px-10 lg:py-8"
        >
          <div className="mx-auto max-w-7xl">
            {/* j/k, Enter, x, a/r/p, Esc, / and ? on every screen; "Keyboard shortcuts (?)" below the page. */}
            <KeyboardShortcuts>{children}</KeyboardShortcuts>
          </div>
        </main>
      </div>
    </QueryProvider>
  );
}
