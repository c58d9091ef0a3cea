import type { Metadata } from "next";
import Link from "next/link";
import { AlertRuleForm } from "../../../../components/alerts/alert-rule-form";
import { AlertRulesTable } from "../../../../components/alerts/alert-rules-table";
import { EditAlertRule } from "../../../../components/alerts/edit-alert-rule";
import { FailingDestinations } from "../../../../components/alerts/failing-destinations";
import { deadLettersHref } from "../../../../components/dead-letters/href";
import { Card } from "../../../../components/ui/card";
import { EmptyState } from "../../../../components/ui/empty-state";
import { PageHeader } from "../../../../components/ui/page-header";
import { pageViewer } from "../../../../lib/auth/page";
import { can } from "../../../../lib/domain/access";
import { getDb } from "../../../../lib/server/db";
import { listAlertRules } from "../../../../lib/server/queries/list-alert-rules";
import { listFailingDestinations } from "../../../../lib/server/queries/list-failing-destinations";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Alerts" };

const linkClass = "font-medium text-sky-800 underline-offset-2 hover:underline";

export default async function AlertsPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const viewer = await pageViewer("tasks:read");
  const rules = await listAlertRules(getDb(), viewer);
  const failing = await listFailingDestinations(getDb(), viewer);
  const canWrite = can(viewer, "alerts:write");
  const { edit } = await searchParams;
  const editing = canWrite && typeof edit === "string" ? rules.find((r) => r.id === edit) : null;

  return (
    <>
      <PageHeader
        title="Alerts"
        description="Rules that tell people when the runtime needs them: dead letters, unknown outcomes, approvals waiting. Each alert is delivered once per event by the built-in alert-delivery agent, with retries and its own dead letters."
      />
      <div className="space-y-6">
        <FailingDestinations
          alerts={failing}
          canRetry={canWrite}
          listHref={deadLettersHref({ agent: "alert-delivery" })}
        />
        {editing ? (
          <Card
            id="edit-rule"
            title={`Edit “${editing.name}”`}
            description="Changes apply to events from now on. Leave the URL blank to keep it."
            action={
              <Link href="/settings/alerts" className={linkClass}>
                Cancel
              </Link>
            }
          >
            <EditAlertRule rule={editing} />
          </Card>
        ) : null}
        {canWrite ? (
          <Card
            id="add-rule"
            title="Add a rule"
            description="A signed webhook gets a whsec_ secret, shown once; its deliveries follow the Standard Webhooks format (webhook-id, webhook-timestamp, webhook-signature)."
          >
            <AlertRuleForm />
          </Card>
        ) : null}
        <Card
          id="rules"
          title="Rules"
          description={
            canWrite
              ? `${rules.filter((r) => r.enabled).length} enabled of ${rules.length}.`
              : "Read only: only admins add or change alert rules."
          }
          action={
            <span className="text-slate-600">
              In the ledger:{" "}
              <Link href="/ledger?kind=alert_rule.created" className={linkClass}>
                created
              </Link>
              {" · "}
              <Link href="/ledger?kind=alert_rule.updated" className={linkClass}>
                changed
              </Link>
              {" · "}
              <Link href="/tasks?agent=alert-delivery" className={linkClass}>
                deliveries
              </Link>
            </span>
          }
        >
          {rules.length === 0 ? (
            <EmptyState title="No alert rules yet">
              {canWrite ? "Add one above, or run " : "An admin can add one, or run "}
              <code className="font-mono">agent-ledger alerts create</code>.
            </EmptyState>
          ) : (
            <AlertRulesTable rules={rules} canWrite={canWrite} />
          )}
        </Card>
      </div>
    </>
  );
}
