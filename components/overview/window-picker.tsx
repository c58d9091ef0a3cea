// The chart window as links (`/?window=7d`): the address is the state, so back and forward,
// a reload and a shared link all show the same window.
import Link from "next/link";
import {
  OVERVIEW_WINDOW_SPEC,
  OVERVIEW_WINDOWS,
  type OverviewWindowName,
} from "../../lib/domain/overview-window";

export function WindowPicker({ current }: { current: OverviewWindowName }) {
  return (
    <nav aria-label="Chart window">
      <ul className="inline-flex overflow-hidden rounded-md border border-slate-300 text-sm">
        {OVERVIEW_WINDOWS.map((name) => {
          const active = name === current;
          return (
            <li key={name} className="border-slate-300 not-first:border-l">
              <Link
                href={`/?window=${name}`}
                scroll={false}
                aria-current={active ? "page" : undefined}
                className={`block px-3 py-1.5 font-medium ${active ? "bg-slate-800 text-white" : "bg-white text-slate-800 hover:bg-slate-50"}`}
              >
                {OVERVIEW_WINDOW_SPEC[name].label}
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
