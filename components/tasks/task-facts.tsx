// The task's header facts, as a definition list: what it is, where it stands, and what it cost.
import type { ReactNode } from "react";
import { formatCostUsd } from "../../lib/domain/money";
import type { TaskHeaderDto } from "../../lib/server/queries/get-task-detail";
import { Badge } from "../ui/badge";
import { DEAD_REASON_LABEL, TASK_STATUS_LABEL, TASK_STATUS_TONE } from "../ui/labels";
import { Timestamp } from "../ui/timestamp";
import { compactJson } from "./json-view";

function Fact({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div className="min-w-0">
      <dt className="text-xs font-medium tracking-wide text-slate-600 uppercase">{term}</dt>
      <dd className="mt-1 text-sm text-slate-900">{children}</dd>
    </div>
  );
}

const WAITING: readonly string[] = ["queued", "retry_wait"];

export function TaskFacts({ task }: { task: TaskHeaderDto }) {
  return (
    <dl className="grid grid-cols-2 gap-x-6 gap-y-4 sm:grid-cols-3 xl:grid-cols-4">
      <Fact term="Agent">
        <span className="font-medium">{task.agent}</span>
      </Fact>
      <Fact term="Status">
        <span className="flex flex-wrap items-center gap-2">
          <Badge tone={TASK_STATUS_TONE[task.status]}>{TASK_STATUS_LABEL[task.status]}</Badge>
          {task.deadReason ? (
            <span className="text-slate-700">{DEAD_REASON_LABEL[task.deadReason]}</span>
          ) : null}
        </span>
      </Fact>
      <Fact term="Attempts">
        <span className="tabular-nums" data-testid="task-attempts">
          {task.attempts}
        </span>
      </Fact>
      <Fact term="Version">
        <span className="tabular-nums" data-testid="task-version">
          {task.version}
        </span>
      </Fact>
      <Fact term="Model cost">
        <span className="tabular-nums" data-testid="task-cost">
          {formatCostUsd(task.cost)}
        </span>
      </Fact>
      <Fact term="Created">
        <Timestamp iso={task.createdAt} />
        <span className="block truncate text-xs text-slate-600" title={task.createdBy}>
          by {task.createdBy}
        </span>
      </Fact>
      <Fact term="Updated">
        <Timestamp iso={task.updatedAt} />
      </Fact>
      <Fact term="Status since">
        <Timestamp iso={task.statusChangedAt} />
      </Fact>
      {task.priority !== 0 ? (
        <Fact term="Priority">
          <span className="tabular-nums" data-testid="task-priority">
            {task.priority > 0 ? `+${task.priority}` : task.priority}
          </span>
          <span className="block text-xs text-slate-600">
            claimed {task.priority > 0 ? "before" : "after"} priority 0
          </span>
        </Fact>
      ) : null}
      {task.concurrencyKey !== null ? (
        <Fact term="Concurrency key">
          {task.concurrencyKey === "" ? (
            <span className="text-slate-700">the agent's key function failed</span>
          ) : (
            <span
              className="block truncate font-mono text-xs"
              title={task.concurrencyKey}
              data-testid="task-concurrency-key"
            >
              {task.concurrencyKey}
            </span>
          )}
          <span className="block text-xs text-slate-600">
            counts toward the agent's limit for this key
          </span>
        </Fact>
      ) : null}
      {WAITING.includes(task.status) ? (
        <Fact term="Runs at">
          <Timestamp iso={task.runAt} />
        </Fact>
      ) : null}
      {task.leaseOwner ? (
        <Fact term="Lease">
          <span className="block truncate font-mono text-xs" title={task.leaseOwner}>
            {task.leaseOwner}
          </span>
          {task.leaseExpiresAt ? (
            <span className="block text-xs text-slate-600">
              until <Timestamp iso={task.leaseExpiresAt} />
            </span>
          ) : null}
        </Fact>
      ) : null}
      {task.enqueueKey ? (
        <Fact term="Enqueue key">
          <span className="block truncate font-mono text-xs" title={task.enqueueKey}>
            {task.enqueueKey}
          </span>
        </Fact>
      ) : null}
      {task.policy !== null ? (
        <Fact term="Policy override">
          <span className="block truncate font-mono text-xs" title={compactJson(task.policy, 500)}>
            {compactJson(task.policy, 80)}
          </span>
        </Fact>
      ) : null}
    </dl>
  );
}
