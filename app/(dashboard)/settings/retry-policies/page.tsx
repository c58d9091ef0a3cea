import type { Metadata } from "next";
import Link from "next/link";
import { ModelPricesTable } from "../../../../components/policies/model-prices-table";
import { PolicyChanges } from "../../../../components/policies/policy-changes";
import { AddOverride, EditPolicy } from "../../../../components/policies/policy-editor";
import {
  AgentRowsTable,
  CodeTable,
  InForceTable,
  PolicyValues,
  RowMeta,
} from "../../../../components/policies/policy-tables";
import { ResolutionChain } from "../../../../components/policies/resolution-chain";
import { SpendCapsTable } from "../../../../components/policies/spend-caps-table";
import { ToolLimitsTable } from "../../../../components/policies/tool-limits-table";
import { ReviewAnnouncer } from "../../../../components/review/announcer";
import { Card } from "../../../../components/ui/card";
import { EmptyState } from "../../../../components/ui/empty-state";
import { PageHeader } from "../../../../components/ui/page-header";
import { Timestamp } from "../../../../components/ui/timestamp";
import { pageViewer } from "../../../../lib/auth/page";
import { can } from "../../../../lib/domain/access";
import { getDb } from "../../../../lib/server/db";
import { listModelPrices } from "../../../../lib/server/queries/list-model-prices";
import { listRetryPolicies } from "../../../../lib/server/queries/list-retry-policies";
import { listSpendCaps } from "../../../../lib/server/queries/list-spend-caps";
import { listToolLimits } from "../../../../lib/server/queries/list-tool-limits";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Retry policies" };

const linkClass = "font-medium text-sky-800 underline-offset-2 hover:underline";

export default async function RetryPoliciesPage() {
  const viewer = await pageViewer("tasks:read");
  const [policies, toolLimits, spendCaps, modelPrices] = await Promise.all([
    listRetryPolicies(getDb(), viewer),
    listToolLimits(getDb(), viewer),
    listSpendCaps(getDb(), viewer),
    listModelPrices(getDb(), viewer),
  ]);
  const writes = can(viewer, "policies:write");
  const inheritedOf = new Map(policies.inForce.map((a) => [a.agent, a.inherited]));
  const withoutRow = policies.inForce
    .filter((a) => !a.hasRow)
    .map((a) => ({ agent: a.agent, inherited: a.inherited }));
  const published = policies.inForce.filter((a) => a.code !== null);

  return (
    <>
      <PageHeader
        title="Retry policies"
        description="How many times a task is attempted, how long it backs off between attempts, how long one attempt may run and how much model spend it may use."
        aside={
          <>
            As of <Timestamp iso={policies.asOf} />
          </>
        }
      />
      <div className="space-y-6">
        <p className="rounded-md border border-slate-200 bg-white px-4 py-3 text-sm text-slate-700 shadow-xs">
          {writes
            ? "Edit a policy below."
            : "Admins change policies here; your role can read them."}{" "}
          A change applies to later failures of existing tasks and is recorded in the ledger with
          before, after and who made it.
        </p>

        <Card
          id="resolution"
          title="How a policy is resolved"
          description="For each field, the first level that sets it wins."
        >
          <ResolutionChain />
        </Card>

        <Card
          id="global"
          title="Global default"
          description={
            policies.global ? (
              <RowMeta row={policies.global} />
            ) : (
              "No global policy is set: the built-in defaults apply."
            )
          }
        >
          {writes ? (
            <ReviewAnnouncer>
              <div className="mb-4">
                <EditPolicy
                  scope="global"
                  label="the global policy"
                  version={policies.global?.version ?? null}
                  values={policies.global?.values ?? null}
                  inherited={policies.globalInherited}
                />
              </div>
            </ReviewAnnouncer>
          ) : null}
          {policies.global ? (
            <PolicyValues values={policies.global.values} testId="policy-global" />
          ) : (
            <EmptyState title="No global policy">
              Until an admin sets one, every agent without its own row uses the built-in defaults
              below. <code className="font-mono">npm start</code> seeds a global policy for the
              demo.
            </EmptyState>
          )}
        </Card>

        <Card
          id="agents"
          title="Agent overrides"
          description="Rows scoped to one agent. An empty field inherits from the agent's code, then the global policy."
        >
          {policies.agentRows.length === 0 ? (
            <EmptyState title="No agent overrides">
              Every agent follows the defaults its code declares, then the global policy.
            </EmptyState>
          ) : (
            <AgentRowsTable rows={policies.agentRows} />
          )}
          {writes ? (
            <ReviewAnnouncer>
              <div className="mt-4 flex flex-wrap items-end gap-3" data-testid="policy-editors">
                {policies.agentRows.map((r) => (
                  <EditPolicy
                    key={r.scope}
                    scope={r.scope}
                    label={r.agent ?? r.scope}
                    version={r.version}
                    values={r.values}
                    inherited={inheritedOf.get(r.agent ?? "") ?? policies.globalInherited}
                  />
                ))}
                <AddOverride agents={withoutRow} />
              </div>
            </ReviewAnnouncer>
          ) : null}
        </Card>

        <Card
          id="in-force"
          title="In force per agent"
          description="Agents with tasks, an override or a published catalog entry, resolved agent row → agent code → global → built-in. A task's own override still wins for that task."
        >
          {policies.inForce.length === 0 ? (
            <EmptyState title="No agents yet">
              Agents appear here once a worker publishes them, they have tasks or an override.
            </EmptyState>
          ) : (
            <InForceTable agents={policies.inForce} />
          )}
        </Card>

        <Card
          id="code"
          title="Declared in agent code"
          description="What each agent's code sets, as its workers published it at start. An admin's agent row overrides it without a deploy."
        >
          {published.length === 0 ? (
            <EmptyState title="No agent published yet">
              A worker publishes its agents, and the retry policy their code declares, when it
              starts. Until one has, values from code cannot be shown.
            </EmptyState>
          ) : (
            <CodeTable agents={published} />
          )}
        </Card>

        <Card
          id="tool-limits"
          title="Tool rate limits"
          description="At most so many calls reach a tool's provider in any period, across every worker. An admin's limit replaces the code's without a deploy; attempts claimed after a change are held to it."
        >
          {toolLimits.length === 0 ? (
            <EmptyState title="No tools published yet">
              A worker publishes its agents' tools, and the rate limits their code declares, when it
              starts.
            </EmptyState>
          ) : (
            <ReviewAnnouncer>
              <ToolLimitsTable tools={toolLimits} writes={writes} />
            </ReviewAnnouncer>
          )}
        </Card>

        <Card
          id="spend-caps"
          title="Daily spend budgets"
          description="An agent's model spend per UTC day, over all its tasks and optionally per value of an input key. Checked before each model call: over it, a task waits for the next day or dead-letters with reason budget."
        >
          {spendCaps.length === 0 ? (
            <EmptyState title="No agents published yet">
              A worker publishes its agents when it starts; each can then be given a budget.
            </EmptyState>
          ) : (
            <ReviewAnnouncer>
              <SpendCapsTable agents={spendCaps} writes={writes} />
            </ReviewAnnouncer>
          )}
        </Card>

        <Card
          id="model-prices"
          title="Model prices"
          description="What a model call costs, per million tokens: an admin's price wins over a worker's configured MODEL_PRICES, which wins over the shipped default. Calls recorded after a change are charged the new price; a model no level prices costs 0 and is marked unpriced."
        >
          <ReviewAnnouncer>
            <ModelPricesTable models={modelPrices} writes={writes} />
          </ReviewAnnouncer>
        </Card>

        <Card
          id="built-in"
          title="Built-in defaults"
          description="Agent Ledger's own floor, used for any field no level sets."
        >
          <PolicyValues values={policies.builtIn} testId="policy-built-in" />
        </Card>

        <Card
          id="changes"
          title="Change history"
          description="Each policy.changed entry in the ledger's system stream, newest first, field by field: before → after."
          action={
            <Link href="/ledger?kind=policy.changed" className={linkClass}>
              All policy changes
            </Link>
          }
        >
          {policies.changes.length === 0 ? (
            <EmptyState title="No changes recorded">
              Every policy change is appended to the ledger as policy.changed, with before, after
              and who made it.
            </EmptyState>
          ) : (
            <PolicyChanges changes={policies.changes} />
          )}
        </Card>
      </div>
    </>
  );
}
