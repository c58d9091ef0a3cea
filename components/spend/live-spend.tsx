"use client";
// The spend screen, live: the server render seeds it, then it re-reads GET /api/screens/spend
// for the same filter every few seconds while the tab is visible, as the overview does.
import { formatCostUsd } from "../../lib/domain/money";
import type { SpendDto } from "../../lib/server/queries/get-spend";
import { LiveStatus } from "../live/live-status";
import { type ScreenParams, useLiveQuery } from "../live/use-live-query";
import { SeriesChart } from "../overview/series-chart";
import { Card } from "../ui/card";
import { EmptyState } from "../ui/empty-state";
import { Timestamp } from "../ui/timestamp";
import { SpendRowsTable, SpendToolsTable, shareText, TopTasksTable } from "./spend-tables";

const numberFormat = new Intl.NumberFormat("en-US");
// The chart's axis has room for a number, not a currency code: its title says USD.
const dollarFormat = new Intl.NumberFormat("en-US", { maximumFractionDigits: 6 });
const dollars = (v: number) => dollarFormat.format(v);

function Figure({
  label,
  value,
  hint,
  testId,
}: {
  label: string;
  value: string;
  hint?: string;
  testId: string;
}) {
  return (
    <div className="rounded-lg border border-slate-200 bg-white px-4 py-3 shadow-sm">
      <dt className="text-xs font-medium tracking-wide text-slate-600 uppercase">{label}</dt>
      <dd className="mt-1 text-xl font-semibold text-slate-900 tabular-nums" data-testid={testId}>
        {value}
      </dd>
      {hint ? <dd className="mt-0.5 text-xs text-slate-600">{hint}</dd> : null}
    </div>
  );
}

export function LiveSpend({ initial, params }: { initial: SpendDto; params: ScreenParams }) {
  const live = useLiveQuery<SpendDto>({ screen: "spend", params, initialData: initial });
  const spend = live.data;
  const { totals, wasted } = spend;
  const windowText = `${spend.from} to ${spend.to} (UTC days)`;
  const nothing = totals.calls === 0 && wasted.taskCost === 0 && spend.byTool.length === 0;

  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-center justify-between gap-2 text-sm text-slate-600">
        <LiveStatus
          updatedAt={live.dataUpdatedAt}
          fetching={live.isFetching}
          error={live.error}
          onRefresh={() => void live.refetch()}
        />
        <p>
          {windowText} · as of <Timestamp iso={spend.asOf} />
        </p>
      </div>

      {nothing ? (
        <EmptyState title="Nothing was spent in this window">
          Model calls add their cost here as agents run; widen the window or clear the filters.
        </EmptyState>
      ) : (
        <>
          <dl className="grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-4" aria-label="Totals">
            <Figure label="Spent" value={formatCostUsd(totals.cost)} testId="spend-total-cost" />
            <Figure
              label="Model calls"
              value={numberFormat.format(totals.calls)}
              hint={
                totals.unpricedCalls > 0
                  ? `${numberFormat.format(totals.unpricedCalls)} unpriced (counted as 0)`
                  : "All priced"
              }
              testId="spend-total-calls"
            />
            <Figure
              label="Input tokens"
              value={numberFormat.format(totals.inputTokens)}
              hint={`${numberFormat.format(totals.cachedInputTokens)} cached`}
              testId="spend-input-tokens"
            />
            <Figure
              label="Output tokens"
              value={numberFormat.format(totals.outputTokens)}
              hint={`${numberFormat.format(totals.reasoningTokens)} reasoning`}
              testId="spend-output-tokens"
            />
          </dl>

          <Card
            id="spend-per-day"
            title="Spend per day"
            description={`Model cost per UTC day, ${windowText}.`}
          >
            <SeriesChart
              title="Spend per day (USD)"
              description={`Bars: the model cost of each UTC day from ${spend.from} to ${spend.to}, ${formatCostUsd(totals.cost)} in all.`}
              labels={spend.days.map((d) => d.day)}
              series={[
                {
                  name: "Spend",
                  fill: "fill-sky-600",
                  swatch: "bg-sky-600",
                  values: spend.days.map((d) => d.cost),
                },
              ]}
              kind="bars"
              format={dollars}
              testId="spend-chart"
            />
          </Card>

          <Card
            id="spend-wasted"
            title="Spent on tasks that ended dead or rejected"
            description="Tasks counted by the UTC day they were created, whatever day they spent on; a dead task that is retried moves out of this share."
          >
            <p className="text-sm text-slate-800">
              <span
                className="text-2xl font-semibold tabular-nums"
                data-testid="spend-wasted-share"
              >
                {shareText(wasted.share)}
              </span>{" "}
              of {formatCostUsd(wasted.taskCost)} spent by tasks created in the window:{" "}
              <span data-testid="spend-dead-cost">{formatCostUsd(wasted.deadCost)}</span> on{" "}
              {numberFormat.format(wasted.deadTasks)} dead{" "}
              {wasted.deadTasks === 1 ? "task" : "tasks"},{" "}
              <span data-testid="spend-rejected-cost">{formatCostUsd(wasted.rejectedCost)}</span> on{" "}
              {numberFormat.format(wasted.rejectedTasks)} rejected.
            </p>
          </Card>

          <Card id="spend-by-agent" title="By agent">
            <SpendRowsTable
              rows={spend.byAgent}
              keyLabel="Agent"
              caption="Spend by agent"
              testId="spend-by-agent-table"
            />
          </Card>
          <Card id="spend-by-model" title="By model">
            <SpendRowsTable
              rows={spend.byModel}
              keyLabel="Model"
              caption="Spend by model"
              testId="spend-by-model-table"
            />
          </Card>
          <Card
            id="spend-by-tool"
            title="By tool"
            description="A model call's cost split evenly over the tools it proposed; the model filter does not apply here (the tool counters do not keep the model)."
          >
            {spend.byTool.length === 0 ? (
              <EmptyState title="No model answers match this tool" />
            ) : (
              <SpendToolsTable rows={spend.byTool} />
            )}
          </Card>
          <Card
            id="spend-top-tasks"
            title="Most expensive tasks"
            description="Tasks created in the window (and of the agent filtered), costliest first."
          >
            {spend.topTasks.length === 0 ? (
              <EmptyState title="No task created in this window spent anything" />
            ) : (
              <TopTasksTable tasks={spend.topTasks} />
            )}
          </Card>
        </>
      )}
    </div>
  );
}
