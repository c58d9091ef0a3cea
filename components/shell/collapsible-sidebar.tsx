"use client";
// The sidebar's frame. From 1024 px up it is the 15rem column, always open. Below that (tablets,
// phones) it folds into a bar: the brand, the inbox with its live count, and a Menu button that
// opens the navigation and the user menu as a panel under the bar (a disclosure: no focus trap,
// Esc closes it and returns to the button). It closes by itself once a link is followed.
import Link from "next/link";
import { usePathname } from "next/navigation";
import {
  type KeyboardEvent,
  type MouseEvent,
  type ReactNode,
  useId,
  useRef,
  useState,
} from "react";
import type { InboxCountsDto } from "../../lib/server/queries/inbox-counts";
import { InboxCount } from "./inbox-count";

export function CollapsibleSidebar({
  brand,
  inboxCounts,
  children,
}: {
  brand: ReactNode;
  /** As the layout read them: the bar shows the inbox count while the menu is closed. */
  inboxCounts: InboxCountsDto;
  /** The navigation and the user menu. */
  children: ReactNode;
}) {
  const [open, setOpen] = useState(false);
  const panelId = useId();
  const button = useRef<HTMLButtonElement>(null);
  // A followed link changes the path: the panel closes (state adjusted during render, not in an effect).
  const pathname = usePathname();
  const [shownFor, setShownFor] = useState(pathname);
  if (shownFor !== pathname) {
    setShownFor(pathname);
    setOpen(false);
  }

  function onPanelKeyDown(event: KeyboardEvent<HTMLDivElement>) {
    if (event.key !== "Escape" || !open) return;
    setOpen(false);
    button.current?.focus();
  }

  function onPanelClick(event: MouseEvent<HTMLDivElement>) {
    // A link to the page already shown changes no path; close for it too.
    if (event.target instanceof Element && event.target.closest("a")) setOpen(false);
  }

  return (
    <>
      <div className="flex items-center gap-2 px-4 py-2.5 lg:px-5 lg:pt-6 lg:pb-6">
        {brand}
        <div className="ml-auto flex items-center gap-1 lg:hidden">
          <Link
            href="/inbox"
            className="flex items-center gap-1.5 rounded-md px-2 py-1.5 text-sm font-medium text-slate-200 hover:bg-slate-800 hover:text-white focus-visible:outline-sky-300"
          >
            Inbox
            <InboxCount initial={inboxCounts} placement="in-link" />
          </Link>
          <button
            ref={button}
            type="button"
            aria-expanded={open}
            aria-controls={panelId}
            onClick={() => setOpen((o) => !o)}
            className="flex items-center gap-1.5 rounded-md border border-slate-700 px-3 py-1.5 text-sm font-medium text-slate-100 hover:bg-slate-800 focus-visible:outline-sky-300"
          >
            <span aria-hidden="true" className="text-base leading-none">
              {open ? "×" : "≡"}
            </span>
            Menu
          </button>
        </div>
      </div>
      {/* Hidden (not just covered) while closed, so Tab skips it; always shown from lg up. */}
      {/* biome-ignore lint/a11y/noStaticElementInteractions: the keys and clicks are its links' and buttons', caught as they bubble */}
      <div
        id={panelId}
        data-testid="sidebar-panel"
        onKeyDown={onPanelKeyDown}
        onClick={onPanelClick}
        className={`${open ? "block" : "hidden"} border-t border-slate-800 max-lg:max-h-[calc(100dvh-3.5rem)] max-lg:overflow-y-auto lg:block lg:border-t-0`}
      >
        {children}
      </div>
    </>
  );
}
