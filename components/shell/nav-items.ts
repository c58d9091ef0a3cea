// The dashboard's sections, in the order the sidebar lists them.
export type NavItem = { href: string; label: string };
export type NavGroup = { label: string; items: NavItem[] };

export const NAV_GROUPS: NavGroup[] = [
  {
    label: "Operate",
    items: [
      { href: "/", label: "Overview" },
      { href: "/tasks", label: "Tasks" },
      { href: "/dead-letters", label: "Dead letters" },
      { href: "/approvals", label: "Approvals" },
    ],
  },
  {
    label: "Audit",
    items: [
      { href: "/ledger", label: "Ledger" },
      { href: "/why", label: "Why?" },
    ],
  },
  {
    label: "Settings",
    items: [
      { href: "/settings/retry-policies", label: "Retry policies" },
      { href: "/settings/users", label: "Users" },
      { href: "/settings/tokens", label: "API tokens" },
    ],
  },
];

/** A section is current on its own page and on pages below it; Overview only on itself. */
export function isCurrent(href: string, pathname: string): boolean {
  if (href === "/") return pathname === "/";
  return pathname === href || pathname.startsWith(`${href}/`);
}
