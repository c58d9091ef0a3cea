import type { ReactNode } from "react";
import type { StatTone } from "./stat";

const TONE_CLASS: Record<StatTone, string> = {
  neutral: "bg-slate-100 text-slate-800 ring-slate-300",
  info: "bg-sky-50 text-sky-900 ring-sky-300",
  good: "bg-emerald-50 text-emerald-900 ring-emerald-300",
  warn: "bg-amber-50 text-amber-900 ring-amber-300",
  bad: "bg-rose-50 text-rose-900 ring-rose-300",
};

export function Badge({ tone = "neutral", children }: { tone?: StatTone; children: ReactNode }) {
  return (
    <span
      className={`inline-flex items-center rounded-full px-2 py-0.5 text-xs font-medium whitespace-nowrap ring-1 ring-inset ${TONE_CLASS[tone]}`}
    >
      {children}
    </span>
  );
}
