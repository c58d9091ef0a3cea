// A small hand-written SVG chart (no chart library): stacked bars per interval, or a line for a
// rate. The picture is one labelled image with a native tooltip per bar or point; the same
// numbers are a real table below it, for screen readers and for anyone who wants the figures.
// Not a client component of its own: it renders on the server first and again on each refresh.
import { useId } from "react";

export type ChartSeries = {
  name: string;
  /** A fill colour class for the SVG (`fill-…`) and the legend swatch (`bg-…`). */
  fill: string;
  swatch: string;
  values: (number | null)[];
};

const WIDTH = 640;
const HEIGHT = 160;
const PAD = { top: 8, right: 8, bottom: 22, left: 40 };
const numberFormat = new Intl.NumberFormat("en-US");

/** 0, a round top and the middle: enough for a glance, never crowded. */
function niceTop(max: number): number {
  if (max <= 0) return 1;
  const magnitude = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 2.5, 5, 10]) {
    if (step * magnitude >= max) return step * magnitude;
  }
  return 10 * magnitude;
}

export function SeriesChart({
  title,
  description,
  labels,
  series,
  kind,
  format = (v) => numberFormat.format(v),
  testId,
}: {
  title: string;
  /** One sentence: what the chart counts and over which window (the image's description). */
  description: string;
  /** One label per interval (its start, UTC). */
  labels: string[];
  series: ChartSeries[];
  /** `bars` stacks the series; `line` draws each as a line (rates, 0 to 1). */
  kind: "bars" | "line";
  format?: (value: number) => string;
  testId?: string;
}) {
  const id = useId();
  const n = labels.length;
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const slot = plotW / Math.max(1, n);
  const stackTotals = labels.map((_, i) => series.reduce((sum, s) => sum + (s.values[i] ?? 0), 0));
  const top = kind === "line" ? 1 : niceTop(Math.max(0, ...stackTotals));
  const y = (v: number) => PAD.top + plotH - (v / top) * plotH;
  // Every few intervals a label, so 30 of them stay readable.
  const labelEvery = Math.max(1, Math.ceil(n / 8));

  return (
    <figure className="space-y-2" data-testid={testId}>
      <figcaption className="text-sm font-medium text-slate-800">{title}</figcaption>
      <ul className="flex flex-wrap gap-x-4 gap-y-1 text-xs text-slate-700" aria-label="Legend">
        {series.map((s) => (
          <li key={s.name} className="flex items-center gap-1.5">
            <span aria-hidden="true" className={`inline-block size-2.5 rounded-sm ${s.swatch}`} />
            {s.name}
          </li>
        ))}
      </ul>
      <svg
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        className="h-auto w-full"
        role="img"
        aria-labelledby={`${id}-svg-title ${id}-desc`}
      >
        <title id={`${id}-svg-title`}>{title}</title>
        <desc id={`${id}-desc`}>{description}</desc>
        {[0, top / 2, top].map((tick) => (
          <g key={tick}>
            <line
              x1={PAD.left}
              x2={WIDTH - PAD.right}
              y1={y(tick)}
              y2={y(tick)}
              className="stroke-slate-200"
              strokeWidth={1}
            />
            <text
              x={PAD.left - 4}
              y={y(tick) + 3}
              textAnchor="end"
              className="fill-slate-600 text-[10px]"
            >
              {format(tick)}
            </text>
          </g>
        ))}
        {labels.map((label, i) =>
          i % labelEvery === 0 ? (
            <text
              key={label}
              x={PAD.left + i * slot + slot / 2}
              y={HEIGHT - 6}
              textAnchor="middle"
              className="fill-slate-600 text-[10px]"
            >
              {label}
            </text>
          ) : null,
        )}
        {kind === "bars"
          ? labels.map((label, i) => {
              let base = 0;
              return (
                <g key={label}>
                  {series.map((s) => {
                    const v = s.values[i] ?? 0;
                    if (v <= 0) return null;
                    const y0 = y(base);
                    base += v;
                    const y1 = y(base);
                    return (
                      <rect
                        key={s.name}
                        x={PAD.left + i * slot + slot * 0.15}
                        width={slot * 0.7}
                        y={y1}
                        height={Math.max(1, y0 - y1)}
                        className={s.fill}
                      >
                        <title>{`${label}: ${s.name} ${format(v)}`}</title>
                      </rect>
                    );
                  })}
                </g>
              );
            })
          : series.map((s) => {
              const points = s.values
                .map((v, i) =>
                  v === null ? null : ([PAD.left + i * slot + slot / 2, y(v)] as const),
                )
                .filter((p): p is readonly [number, number] => p !== null);
              return (
                <g key={s.name}>
                  <polyline
                    points={points.map(([px, py]) => `${px},${py}`).join(" ")}
                    fill="none"
                    className="stroke-emerald-600"
                    strokeWidth={2}
                  />
                  {s.values.map((v, i) =>
                    v === null ? null : (
                      <circle
                        // biome-ignore lint/suspicious/noArrayIndexKey: one point per interval, in order
                        key={i}
                        cx={PAD.left + i * slot + slot / 2}
                        cy={y(v)}
                        r={3}
                        className={s.fill}
                      >
                        <title>{`${labels[i]}: ${s.name} ${format(v)}`}</title>
                      </circle>
                    ),
                  )}
                </g>
              );
            })}
      </svg>
      <details className="text-sm">
        <summary className="cursor-pointer text-sky-800">Show the numbers</summary>
        <table className="mt-2 w-full text-left text-xs tabular-nums">
          <caption className="sr-only">{title}, per interval</caption>
          <thead>
            <tr>
              <th scope="col" className="py-1 pr-3 font-medium">
                Interval (UTC)
              </th>
              {series.map((s) => (
                <th key={s.name} scope="col" className="py-1 pr-3 font-medium">
                  {s.name}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {labels.map((label, i) => (
              <tr key={label} className="border-t border-slate-100">
                <th scope="row" className="py-1 pr-3 font-normal">
                  {label}
                </th>
                {series.map((s) => {
                  const v = s.values[i] ?? null;
                  return (
                    <td key={s.name} className="py-1 pr-3">
                      {v === null ? "–" : format(v)}
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
