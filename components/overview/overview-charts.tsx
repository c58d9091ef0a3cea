// The overview's charts over the chosen window: task outcomes, failed attempts, success rate,
// deduplicated effects. Labels are UTC, like every time on the dashboard.
import { OVERVIEW_WINDOW_SPEC } from "../../lib/domain/overview-window";
import type { OverviewSeriesDto } from "../../lib/server/queries/get-overview-series";
import { EmptyState } from "../ui/empty-state";
import { SeriesChart } from "./series-chart";
import { WindowPicker } from "./window-picker";

const DAY = 86_400_000;
const numberFormat = new Intl.NumberFormat("en-US");
const percent = (v: number) => `${Math.round(v * 100)} %`;

function bucketLabel(iso: string, stepMs: number, windowMs: number): string {
  // 2026-12-01T14:35:00.000Z → "14:35", "12-01 12:00" or "12-01".
  if (stepMs >= DAY) return iso.slice(5, 10);
  if (windowMs > DAY) return `${iso.slice(5, 10)} ${iso.slice(11, 16)}`;
  return iso.slice(11, 16);
}

export function OverviewCharts({ series }: { series: OverviewSeriesDto }) {
  const spec = OVERVIEW_WINDOW_SPEC[series.window];
  const windowMs = spec.stepMs * spec.buckets;
  const labels = series.bucketStarts.map((iso) => bucketLabel(iso, series.stepMs, windowMs));
  const during = `${spec.label.toLowerCase()}, per ${spec.stepLabel}`;
  const { totals } = series;
  const nothing =
    totals.succeeded + totals.failed + totals.deadLettered + totals.deduplicated === 0;

  return (
    <div className="space-y-4">
      <WindowPicker current={series.window} />
      <dl className="grid grid-cols-2 gap-3 text-sm sm:grid-cols-5" data-testid="series-totals">
        {(
          [
            ["Succeeded", numberFormat.format(totals.succeeded), "succeeded"],
            ["Attempts failed", numberFormat.format(totals.failed), "failed"],
            ["Dead-lettered", numberFormat.format(totals.deadLettered), "dead-lettered"],
            [
              "Success rate",
              series.successRateTotal === null ? "–" : percent(series.successRateTotal),
              "success-rate",
            ],
            ["Effects deduplicated", numberFormat.format(totals.deduplicated), "deduplicated"],
          ] as const
        ).map(([label, value, id]) => (
          <div key={id} className="rounded-md border border-slate-200 px-3 py-2">
            <dt className="text-slate-600">{label}</dt>
            <dd
              className="text-lg font-semibold tabular-nums text-slate-900"
              data-testid={`total-${id}`}
            >
              {value}
            </dd>
          </div>
        ))}
      </dl>
      {nothing ? (
        <EmptyState title={`Nothing happened ${spec.label.toLowerCase()}`}>
          No task finished, failed or was dead-lettered and no effect was deduplicated in this
          window. Choose a longer window, or enqueue a task to see it here.
        </EmptyState>
      ) : (
        <div className="grid gap-6 xl:grid-cols-2">
          <SeriesChart
            testId="chart-outcomes"
            title="Tasks succeeded and dead-lettered"
            description={`Tasks that succeeded and tasks that were dead-lettered, ${during}: ${numberFormat.format(totals.succeeded)} succeeded, ${numberFormat.format(totals.deadLettered)} dead-lettered.`}
            labels={labels}
            kind="bars"
            series={[
              {
                name: "Succeeded",
                fill: "fill-emerald-600",
                swatch: "bg-emerald-600",
                values: series.counts.succeeded,
              },
              {
                name: "Dead-lettered",
                fill: "fill-rose-600",
                swatch: "bg-rose-600",
                values: series.counts.deadLettered,
              },
            ]}
          />
          <SeriesChart
            testId="chart-failed"
            title="Attempts failed"
            description={`Attempts that failed (the agent threw, or its worker was lost), ${during}: ${numberFormat.format(totals.failed)} in all.`}
            labels={labels}
            kind="bars"
            series={[
              {
                name: "Attempts failed",
                fill: "fill-amber-500",
                swatch: "bg-amber-500",
                values: series.counts.failed,
              },
            ]}
          />
          <SeriesChart
            testId="chart-success-rate"
            title="Success rate"
            description={`Of the tasks that succeeded or were dead-lettered, the share that succeeded, ${during}; ${series.successRateTotal === null ? "no task reached an outcome" : `${percent(series.successRateTotal)} over the window`}. Intervals where no task reached an outcome are left out.`}
            labels={labels}
            kind="line"
            format={percent}
            series={[
              {
                name: "Success rate",
                fill: "fill-emerald-700",
                swatch: "bg-emerald-700",
                values: series.successRate,
              },
            ]}
          />
          <SeriesChart
            testId="chart-deduplicated"
            title="Effects deduplicated"
            description={`Side effects whose key had already succeeded, so the stored result was returned instead of acting again, ${during}: ${numberFormat.format(totals.deduplicated)} in all.`}
            labels={labels}
            kind="bars"
            series={[
              {
                name: "Deduplicated",
                fill: "fill-sky-600",
                swatch: "bg-sky-600",
                values: series.counts.deduplicated,
              },
            ]}
          />
        </div>
      )}
    </div>
  );
}
