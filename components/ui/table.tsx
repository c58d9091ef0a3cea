import type { ReactNode } from "react";

/**
 * A data table that scrolls sideways inside its own box on narrow screens instead of
 * widening the page. The caption names it for screen readers.
 */
export function Table({ caption, children }: { caption: string; children: ReactNode }) {
  return (
    <div className="-mx-4 overflow-x-auto sm:mx-0">
      <table className="min-w-full divide-y divide-slate-200 text-left text-sm">
        <caption className="sr-only">{caption}</caption>
        {children}
      </table>
    </div>
  );
}

export function Th({
  children,
  align = "left",
}: {
  children: ReactNode;
  align?: "left" | "right";
}) {
  return (
    <th
      scope="col"
      className={`px-3 py-2 text-xs font-semibold tracking-wide text-slate-600 uppercase first:pl-4 sm:first:pl-0 ${align === "right" ? "text-right" : ""}`}
    >
      {children}
    </th>
  );
}

export function Td({
  children,
  align = "left",
  mono = false,
}: {
  children: ReactNode;
  align?: "left" | "right";
  mono?: boolean;
}) {
  return (
    <td
      className={`px-3 py-2 align-baseline text-slate-800 first:pl-4 sm:first:pl-0 ${align === "right" ? "text-right tabular-nums" : ""} ${mono ? "font-mono text-xs" : ""}`}
    >
      {children}
    </td>
  );
}
