// The latest approval decisions: who said yes or no to which payload, and whether an approved
// effect has run since.
import type { DecidedApprovalDto } from "../../lib/server/queries/list-approvals";
import { JsonDetails } from "../tasks/json-view";
import { APPROVAL_STATUS_LABEL, APPROVAL_STATUS_TONE } from "../tasks/labels";
import { ShortHash } from "../tasks/short-hash";
import { TaskLink } from "../tasks/task-link";
import { Badge } from "../ui/badge";
import { Table, Td, Th } from "../ui/table";
import { Timestamp } from "../ui/timestamp";

export function DecidedApprovals({ approvals }: { approvals: DecidedApprovalDto[] }) {
  return (
    <Table caption="Recent approval decisions, newest first">
      <thead>
        <tr>
          <Th>Decided</Th>
          <Th>Decision</Th>
          <Th>Task</Th>
          <Th>Tool</Th>
          <Th>Arguments</Th>
          <Th>By</Th>
          <Th>Effect</Th>
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100">
        {approvals.map((a) => (
          <tr key={a.id} data-approval-id={a.id}>
            <Td>
              <Timestamp iso={a.decidedAt} />
            </Td>
            <Td>
              <span className="flex flex-col items-start gap-1">
                <Badge tone={APPROVAL_STATUS_TONE[a.status]}>
                  {APPROVAL_STATUS_LABEL[a.status]}
                </Badge>
                {a.reason ? (
                  <span className="line-clamp-2 max-w-[16rem] text-xs break-words text-slate-700">
                    “{a.reason}”
                  </span>
                ) : null}
              </span>
            </Td>
            <Td>
              <TaskLink id={a.taskId} />
              <span className="block text-xs text-slate-600">{a.agent}</span>
            </Td>
            <Td mono>{a.tool}</Td>
            <Td>
              <JsonDetails value={a.args} label={`Arguments of approval ${a.id}`} summary="Args" />
              <span className="mt-1 block text-xs text-slate-600">
                fingerprint <ShortHash value={a.fingerprint} chars={8} />
              </span>
            </Td>
            <Td>
              <span className="block max-w-[14rem] truncate" title={a.decidedBy ?? undefined}>
                {a.decidedBy ?? "Unknown"}
              </span>
            </Td>
            <Td>
              {a.status === "approved" ? (
                a.usedAt ? (
                  <span className="text-slate-700">
                    Started <Timestamp iso={a.usedAt} />
                  </span>
                ) : (
                  <span className="text-slate-600">Not run yet</span>
                )
              ) : (
                <span className="text-slate-600">Will not run</span>
              )}
            </Td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
