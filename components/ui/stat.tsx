import Link from "next/link";
import type { ReactNode } from "react";

export type StatTone = "neutral" | "info" | "good" | "warn" | "bad";

const TONE_BAR: Record<StatTone, string> = {
  neutral: "bg-slate-300",
  info: "bg-sky-500",
  good: "bg-emerald-500",
  warn: "bg-amber-500",
  bad: "bg-rose-600",
};

type StatProps = {
  label: string;
  value: number;
  tone?: StatTone;
  hint?: ReactNode;
  /** Where to see the rows behind the number. */
  href?: string;
  /** Stable hook for tests that compare the number with the database. */
  testId?: string;
};

const numberFormat = new Intl.NumberFormat("en-US");

/** One count with its label. A non-zero count in a tone other than neutral draws the eye. */
export function Stat({ label, value, tone = "neutral", hint, href, testId }: StatProps) {
  const active = value > 0 ? TONE_BAR[tone] : TONE_BAR.neutral;
  const body = (
    <>
      <span aria-hidden="true" className={`absolute inset-y-0 left-0 w-1 rounded-l-md ${active}`} />
      <span className="block text-sm font-medium text-slate-600">{label}</span>
      <span
        data-testid={testId}
        data-value={value}
        className="mt-1 block text-2xl font-semibold tabular-nums text-slate-900"
      >
        {numberFormat.format(value)}
      </span>
      {hint ? <span className="mt-0.5 block text-xs text-slate-600">{hint}</span> : null}
    </>
  );
  const frame =
    "relative block rounded-md border border-slate-200 bg-white py-3 pr-3 pl-4 shadow-xs";
  if (!href) return <div className={frame}>{body}</div>;
  return (
    <Link
      href={href}
      className={`${frame} transition-colors hover:border-slate-300 hover:bg-slate-50`}
    >
      {body}
    </Link>
  );
}
