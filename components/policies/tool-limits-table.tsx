// Each published tool's rate limit: what its code declares, an admin's limit, and which one
// calls are held to; admins get an edit button per tool.
import { describeRateLimit } from "../../lib/domain/rate-limit";
import type { ToolLimitDto } from "../../lib/server/queries/list-tool-limits";
import { Table, Td, Th } from "../ui/table";
import { Timestamp } from "../ui/timestamp";
import { EditToolLimit } from "./tool-limit-editor";

export function ToolLimitsTable({ tools, writes }: { tools: ToolLimitDto[]; writes: boolean }) {
  return (
    <Table caption="Tool rate limits">
      <thead>
        <tr>
          <Th>Tool</Th>
          <Th>Agents</Th>
          <Th>Agent code</Th>
          <Th>Admin</Th>
          <Th>In force</Th>
          {writes ? <Th>Change</Th> : null}
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100">
        {tools.map((t) => (
          <tr key={t.tool} data-tool={t.tool}>
            <Td mono>{t.tool}</Td>
            <Td>{t.agents.length > 0 ? t.agents.join(", ") : "no published agent"}</Td>
            <Td>{t.code ? describeRateLimit(t.code) : "—"}</Td>
            <Td>
              {t.admin ? (
                <>
                  <span data-cell="admin">
                    {describeRateLimit({ ...t.admin, keyed: t.code?.keyed ?? false })}
                  </span>
                  <span className="block text-xs text-slate-600">
                    v{t.admin.version} by {t.admin.updatedBy}, <Timestamp iso={t.admin.updatedAt} />
                  </span>
                </>
              ) : (
                "—"
              )}
            </Td>
            <Td>
              <span data-cell="in-force" className="font-medium text-slate-900">
                {t.inForce
                  ? `${describeRateLimit(t.inForce)} (${t.inForce.source === "admin" ? "admin" : "agent code"})`
                  : "No limit"}
              </span>
            </Td>
            {writes ? (
              <Td>
                <EditToolLimit tool={t} />
              </Td>
            ) : null}
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
