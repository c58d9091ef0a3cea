// The dashboard's sections, in the order the sidebar lists them.
import type { Scope } from "../../lib/domain/access";

/**
 * `scope`: shown only to people who have it (the page checks again). `count`: a live number
 * beside the link (the inbox's "waiting for you").
 */
export type NavItem = { href: string; label: string; scope: Scope; count?: "inbox" };
export type NavGroup = { label: string; items: NavItem[] };

export const NAV_GROUPS: NavGroup[] = [
  {
    label: "Operate",
    items: [
      { href: "/", label: "Overview", scope: "tasks:read" },
      { href: "/inbox", label: "Inbox", scope: "tasks:read", count: "inbox" },
      { href: "/tasks", label: "Tasks", scope: "tasks:read" },
      { href: "/dead-letters", label: "Dead letters", scope: "tasks:read" },
      { href: "/approvals", label: "Approvals", scope: "tasks:read" },
      { href: "/agents", label: "Agents", scope: "tasks:read" },
      { href: "/schedules", label: "Schedules", scope: "tasks:read" },
    ],
  },
  {
    label: "Audit",
    items: [
      { href: "/ledger", label: "Ledger", scope: "ledger:read" },
      { href: "/why", label: "Why?", scope: "ledger:read" },
      { href: "/spend", label: "Spend", scope: "metrics:read" },
    ],
  },
  {
    label: "Settings",
    items: [
      { href: "/settings/retry-policies", label: "Retry policies", scope: "tasks:read" },
      { href: "/settings/alerts", label: "Alerts", scope: "tasks:read" },
      { href: "/settings/users", label: "Users", scope: "users:manage" },
      { href: "/settings/tokens", label: "API tokens", scope: "tokens:manage" },
    ],
  },
];

export function visibleGroups(scopes: readonly string[]): NavGroup[] {
  return NAV_GROUPS.map((g) => ({
    ...g,
    items: g.items.filter((i) => scopes.includes(i.scope)),
  })).filter((g) => g.items.length > 0);
}

/** A section is current on its own page and on pages below it; Overview only on itself. */
export function isCurrent(href: string, pathname: string): boolean {
  if (href === "/") return pathname === "/";
  return pathname === href || pathname.startsWith(`${href}/`);
}
