// Alert rules with their filters, destination host (never the URL or secret) and how the
// latest delivery went. Names and actors are rendered as text (React escapes them).
import Link from "next/link";
import type { AlertRuleDto } from "../../lib/server/queries/list-alert-rules";
import { Badge } from "../ui/badge";
import { Table, Td, Th } from "../ui/table";
import { Timestamp } from "../ui/timestamp";
import { KIND_LABELS } from "./alert-labels";
import { AlertRuleControls } from "./alert-rule-controls";

const linkClass = "font-medium text-sky-800 underline-offset-2 hover:underline";

function filters(rule: AlertRuleDto): string {
  if (rule.kind === "no_live_worker") return `no worker seen for ${rule.silentForSeconds ?? 60} s`;
  if (rule.threshold !== null) {
    const what = rule.kind === "spend_day_over" ? "today (UTC)" : "in the last hour";
    return `${rule.agent ? `agent ${rule.agent}` : "all agents together"}, spend ${what} over $${rule.threshold}`;
  }
  const parts = [rule.agent ? `agent ${rule.agent}` : "every agent"];
  if (rule.kind === "dead_letter") parts.push(rule.reason ? `reason ${rule.reason}` : "any reason");
  if (rule.olderThanMinutes !== null) parts.push(`waiting over ${rule.olderThanMinutes} min`);
  return parts.join(", ");
}

function LastDelivery({ last }: { last: AlertRuleDto["lastDelivery"] }) {
  if (!last) return <span className="text-slate-600">none yet</span>;
  const tone =
    last.status === "succeeded" ? "good" : last.status === "dead" ? "bad" : ("info" as const);
  return (
    <span className="flex flex-col items-start gap-0.5">
      <Link href={`/tasks/${last.taskId}`} className={linkClass}>
        <Badge tone={tone}>
          {last.status}
          {last.deadReason ? ` (${last.deadReason})` : ""}
        </Badge>
      </Link>
      <span className="text-xs text-slate-600">
        <Timestamp iso={last.at} />
      </span>
    </span>
  );
}

export function AlertRulesTable({ rules, canWrite }: { rules: AlertRuleDto[]; canWrite: boolean }) {
  return (
    <Table caption="Alert rules">
      <thead>
        <tr>
          <Th>Name</Th>
          <Th>When</Th>
          <Th>Send to</Th>
          <Th>Status</Th>
          <Th>Last delivery</Th>
          {canWrite ? <Th>Actions</Th> : null}
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100">
        {rules.map((r) => (
          <tr key={r.id} data-rule-name={r.name} data-rule-id={r.id}>
            <Td>
              <span className="font-medium text-slate-900">{r.name}</span>
              <span
                className="block max-w-[14rem] truncate text-xs text-slate-600"
                title={r.createdBy}
              >
                by {r.createdBy}
              </span>
            </Td>
            <Td>
              <span className="block">{KIND_LABELS[r.kind]}</span>
              <span className="text-xs text-slate-600">{filters(r)}</span>
            </Td>
            <Td>
              <span className="block">
                {r.destination === "slack" ? "Slack" : "Signed webhook"}
              </span>
              <span className="font-mono text-xs text-slate-600">{r.destinationHost}</span>
            </Td>
            <Td>{r.enabled ? <Badge tone="good">enabled</Badge> : <Badge>disabled</Badge>}</Td>
            <Td>
              <LastDelivery last={r.lastDelivery} />
            </Td>
            {canWrite ? (
              <Td>
                <AlertRuleControls rule={r} />
              </Td>
            ) : null}
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
