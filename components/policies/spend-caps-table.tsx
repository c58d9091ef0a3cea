// Each agent's daily spend budget beside what it has spent today (UTC); admins get an edit button
// per agent.
import { formatCostUsd } from "../../lib/domain/money";
import { describeSpendCap } from "../../lib/domain/spend-cap-form";
import type { SpendCapDto } from "../../lib/server/queries/list-spend-caps";
import { Table, Td, Th } from "../ui/table";
import { Timestamp } from "../ui/timestamp";
import { EditSpendCap } from "./spend-cap-editor";

export function SpendCapsTable({ agents, writes }: { agents: SpendCapDto[]; writes: boolean }) {
  return (
    <Table caption="Daily spend budgets">
      <thead>
        <tr>
          <Th>Agent</Th>
          <Th>Budget</Th>
          <Th>Spent today (UTC)</Th>
          {writes ? <Th>Change</Th> : null}
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100">
        {agents.map((a) => {
          const limit = a.cap?.dailyLimit ?? null;
          return (
            <tr key={a.agent} data-agent={a.agent}>
              <Td mono>{a.agent}</Td>
              <Td>
                {a.cap ? (
                  <>
                    <span data-cell="budget">{describeSpendCap(a.cap)}</span>
                    <span className="block text-xs text-slate-600">
                      v{a.cap.version} by {a.cap.updatedBy}, <Timestamp iso={a.cap.updatedAt} />
                    </span>
                  </>
                ) : (
                  <span data-cell="budget">No budget</span>
                )}
              </Td>
              <Td>
                <span data-cell="spent" className="font-medium text-slate-900">
                  {formatCostUsd(a.spentToday)}
                  {limit !== null && a.spentToday >= limit ? " (budget spent)" : ""}
                </span>
              </Td>
              {writes ? (
                <Td>
                  <EditSpendCap agent={a} />
                </Td>
              ) : null}
            </tr>
          );
        })}
      </tbody>
    </Table>
  );
}
