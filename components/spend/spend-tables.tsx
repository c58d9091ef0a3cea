// The spend screen's breakdowns: per agent or model (cost, calls, the four kinds of tokens and
// the share of the window's spend), per tool, and the most expensive tasks.
import Link from "next/link";
import { formatCostUsd } from "../../lib/domain/money";
import type { TaskStatus } from "../../lib/domain/task-states";
import type { SpendRowDto, SpendTaskDto, SpendToolDto } from "../../lib/server/queries/get-spend";
import { Badge } from "../ui/badge";
import { TASK_STATUS_LABEL, TASK_STATUS_TONE } from "../ui/labels";
import { Table, Td, Th } from "../ui/table";
import { Timestamp } from "../ui/timestamp";

const numberFormat = new Intl.NumberFormat("en-US");
const percentFormat = new Intl.NumberFormat("en-US", {
  style: "percent",
  maximumFractionDigits: 1,
});

export function shareText(share: number | null): string {
  return share === null ? "–" : percentFormat.format(share);
}

export function SpendRowsTable({
  rows,
  keyLabel,
  caption,
  testId,
}: {
  rows: SpendRowDto[];
  keyLabel: string;
  caption: string;
  testId: string;
}) {
  return (
    <div data-testid={testId}>
      <Table caption={caption}>
        <thead>
          <tr>
            <Th>{keyLabel}</Th>
            <Th align="right">Cost</Th>
            <Th align="right">Share</Th>
            <Th align="right">Calls</Th>
            <Th align="right">Input tokens</Th>
            <Th align="right">Output tokens</Th>
            <Th align="right">Cached input</Th>
            <Th align="right">Reasoning</Th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {rows.map((r) => (
            <tr key={r.key} data-key={r.key}>
              <Td mono>{r.key}</Td>
              <Td align="right">
                <span data-testid="row-cost">{formatCostUsd(r.cost)}</span>
              </Td>
              <Td align="right">{shareText(r.share)}</Td>
              <Td align="right">
                <span data-testid="row-calls">{numberFormat.format(r.calls)}</span>
              </Td>
              <Td align="right">{numberFormat.format(r.inputTokens)}</Td>
              <Td align="right">{numberFormat.format(r.outputTokens)}</Td>
              <Td align="right">{numberFormat.format(r.cachedInputTokens)}</Td>
              <Td align="right">{numberFormat.format(r.reasoningTokens)}</Td>
            </tr>
          ))}
        </tbody>
      </Table>
    </div>
  );
}

export function SpendToolsTable({ rows }: { rows: SpendToolDto[] }) {
  return (
    <div data-testid="spend-by-tool">
      <Table caption="Spend by the tool the model chose">
        <thead>
          <tr>
            <Th>Tool</Th>
            <Th align="right">Cost</Th>
            <Th align="right">Share</Th>
            <Th align="right">Model answers</Th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {rows.map((r) => (
            <tr key={r.tool} data-key={r.tool}>
              <Td mono={r.tool !== ""}>{r.label}</Td>
              <Td align="right">
                <span data-testid="row-cost">{formatCostUsd(r.cost)}</span>
              </Td>
              <Td align="right">{shareText(r.share)}</Td>
              <Td align="right">{numberFormat.format(r.decisions)}</Td>
            </tr>
          ))}
        </tbody>
      </Table>
    </div>
  );
}

export function TopTasksTable({ tasks }: { tasks: SpendTaskDto[] }) {
  return (
    <div data-testid="spend-top-tasks">
      <Table caption="The most expensive tasks created in the window">
        <thead>
          <tr>
            <Th>Task</Th>
            <Th>Agent</Th>
            <Th>Status</Th>
            <Th align="right">Cost</Th>
            <Th>Created</Th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {tasks.map((task) => {
            const status = task.status as TaskStatus;
            return (
              <tr key={task.id} data-key={task.id}>
                <Td mono>
                  <Link
                    href={`/tasks/${task.id}`}
                    className="font-medium text-sky-800 underline-offset-2 hover:underline"
                  >
                    {task.id.slice(0, 8)}
                  </Link>
                </Td>
                <Td mono>{task.agent}</Td>
                <Td>
                  <Badge tone={TASK_STATUS_TONE[status] ?? "neutral"}>
                    {TASK_STATUS_LABEL[status] ?? task.status}
                  </Badge>
                </Td>
                <Td align="right">
                  <span data-testid="row-cost">{formatCostUsd(task.cost)}</span>
                </Td>
                <Td>
                  <Timestamp iso={task.createdAt} />
                </Td>
              </tr>
            );
          })}
        </tbody>
      </Table>
    </div>
  );
}
