import type { Metadata } from "next";
import Link from "next/link";
import { ScheduleForm } from "../../../components/schedules/schedule-form";
import { SchedulesTable } from "../../../components/schedules/schedules-table";
import { Card } from "../../../components/ui/card";
import { EmptyState } from "../../../components/ui/empty-state";
import { PageHeader } from "../../../components/ui/page-header";
import { pageViewer } from "../../../lib/auth/page";
import { can } from "../../../lib/domain/access";
import { getDb, getPool } from "../../../lib/server/db";
import { listAgents } from "../../../lib/server/queries/list-agents";
import { listSchedules } from "../../../lib/server/queries/list-schedules";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Schedules" };

const linkClass = "font-medium text-sky-800 underline-offset-2 hover:underline";

export default async function SchedulesPage() {
  const viewer = await pageViewer("tasks:read");
  const schedules = await listSchedules(getDb(), viewer);
  const canWrite = can(viewer, "schedules:write");
  const agents = canWrite ? (await listAgents(getPool(), viewer)).map((a) => a.name) : [];

  return (
    <>
      <PageHeader
        title="Schedules"
        description="Cron schedules per agent, each read in its own time zone. Every worker running the agent ticks them; each occurrence is enqueued once, under the key (schedule, occurrence), however many workers tick."
      />
      <div className="space-y-6">
        {canWrite && agents.length > 0 ? (
          <Card
            id="add-schedule"
            title="Add a schedule"
            description="The input is checked against the agent's published input schema."
          >
            <ScheduleForm agents={agents} />
          </Card>
        ) : null}
        <Card
          id="schedules"
          title="Schedules"
          description={
            canWrite
              ? `${schedules.filter((s) => !s.paused).length} running of ${schedules.length}. A schedule from code can be paused here; it is removed from the code.`
              : "Read only: only admins add, pause or delete schedules."
          }
          action={
            <span className="text-slate-600">
              In the ledger:{" "}
              <Link href="/ledger?kind=schedule.*" className={linkClass}>
                schedule changes
              </Link>
            </span>
          }
        >
          {schedules.length === 0 ? (
            <EmptyState title="No schedules yet">
              Declare <code className="font-mono">schedules</code> in an agent's code, or run{" "}
              <code className="font-mono">agent-ledger schedules add</code>.
            </EmptyState>
          ) : (
            <SchedulesTable schedules={schedules} canWrite={canWrite} />
          )}
        </Card>
      </div>
    </>
  );
}
