"use client";
// The sidebar's links. A client component to read the current path for aria-current; the
// inbox link carries its live count (InboxCount).
import Link from "next/link";
import { usePathname } from "next/navigation";
import type { InboxCountsDto } from "../../lib/server/queries/inbox-counts";
import { InboxCount } from "./inbox-count";
import { isCurrent, visibleGroups } from "./nav-items";

export function SidebarNav({
  scopes,
  inboxCounts,
}: {
  scopes: string[];
  /** As the layout read them; the count re-reads them live. */
  inboxCounts: InboxCountsDto;
}) {
  const pathname = usePathname();
  return (
    <nav aria-label="Main" className="px-3 py-3 lg:pt-0 lg:pb-6">
      {/* Side by side in the folded panel of a tablet, one column in the sidebar. */}
      <ul className="grid gap-4 sm:grid-cols-3 lg:flex lg:flex-col lg:gap-5">
        {visibleGroups(scopes).map((group) => {
          const groupId = `nav-group-${group.label.toLowerCase()}`;
          return (
            <li key={group.label}>
              <p
                id={groupId}
                className="px-3 pb-1 text-xs font-semibold tracking-wider text-slate-400 uppercase"
              >
                {group.label}
              </p>
              <ul aria-labelledby={groupId} className="flex flex-col gap-0.5">
                {group.items.map((item) => {
                  const current = isCurrent(item.href, pathname);
                  return (
                    <li key={item.href} className="relative">
                      <Link
                        href={item.href}
                        aria-current={current ? "page" : undefined}
                        className={`block rounded-md px-3 py-2 text-sm font-medium whitespace-nowrap transition-colors focus-visible:outline-sky-300 ${
                          current
                            ? "bg-slate-700 text-white shadow-[inset_3px_0_0_0_var(--color-sky-400)]"
                            : "text-slate-300 hover:bg-slate-800 hover:text-white"
                        }`}
                      >
                        {item.label}
                        {/* Room for the count, which sits beside the link (not in its name). */}
                        {item.count ? (
                          <span aria-hidden="true" className="inline-block w-10" />
                        ) : null}
                      </Link>
                      {item.count === "inbox" ? <InboxCount initial={inboxCounts} /> : null}
                    </li>
                  );
                })}
              </ul>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
