// Approval requests of one task: each bound to an effect key and the fingerprint of the exact
// arguments it authorizes, with who decided and when it was used.
import type { TaskApprovalDto } from "../../lib/server/queries/get-task-detail";
import { Badge } from "../ui/badge";
import { Table, Td, Th } from "../ui/table";
import { Timestamp } from "../ui/timestamp";
import { JsonDetails } from "./json-view";
import { APPROVAL_STATUS_LABEL, APPROVAL_STATUS_TONE } from "./labels";
import { ShortHash } from "./short-hash";

export function TaskApprovals({ approvals }: { approvals: TaskApprovalDto[] }) {
  return (
    <Table caption="Approval requests of this task, oldest first">
      <thead>
        <tr>
          <Th>Status</Th>
          <Th>Tool</Th>
          <Th>Arguments</Th>
          <Th>Fingerprint</Th>
          <Th>Requested</Th>
          <Th>Decided</Th>
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100">
        {approvals.map((a) => (
          <tr key={a.id} data-approval-id={a.id}>
            <Td>
              <Badge tone={APPROVAL_STATUS_TONE[a.status]}>{APPROVAL_STATUS_LABEL[a.status]}</Badge>
            </Td>
            <Td mono>{a.tool}</Td>
            <Td>
              <JsonDetails value={a.args} label={`Arguments of approval ${a.id}`} summary="Args" />
            </Td>
            <Td>
              <ShortHash value={a.fingerprint} />
              <span className="block text-xs text-slate-600">
                key <ShortHash value={a.effectKey} chars={8} />
              </span>
            </Td>
            <Td>
              <Timestamp iso={a.requestedAt} />
            </Td>
            <Td>
              {a.decidedAt ? (
                <span className="block space-y-0.5">
                  <span className="block truncate" title={a.decidedBy ?? undefined}>
                    {a.decidedBy ?? "Unknown reviewer"}
                  </span>
                  <span className="block text-xs text-slate-600">
                    <Timestamp iso={a.decidedAt} />
                  </span>
                  {a.reason ? (
                    <span className="block text-xs break-words text-slate-700">“{a.reason}”</span>
                  ) : null}
                  {a.status === "approved" ? (
                    <span className="block text-xs text-slate-600">
                      {a.usedAt ? (
                        <>
                          Used <Timestamp iso={a.usedAt} />
                        </>
                      ) : (
                        "Not used yet"
                      )}
                    </span>
                  ) : null}
                </span>
              ) : (
                <span className="text-slate-600">Waiting</span>
              )}
            </Td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
