import type { Metadata } from "next";
import {
  AgentDetails,
  AgentsTable,
  agentAnchor,
  McpServersTable,
  WorkersTable,
} from "../../../components/agents/agent-catalog";
import { Card } from "../../../components/ui/card";
import { EmptyState } from "../../../components/ui/empty-state";
import { PageHeader } from "../../../components/ui/page-header";
import { Timestamp } from "../../../components/ui/timestamp";
import { pageViewer } from "../../../lib/auth/page";
import { pageReaders } from "../../../lib/auth/read-your-writes";
import { env } from "../../../lib/env";
import { getAgentsScreen, WORKERS_SHOWN } from "../../../lib/server/queries/get-agents-screen";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Agents" };

export default async function AgentsPage() {
  const viewer = await pageViewer("tasks:read");
  const { pool } = await pageReaders();
  const screen = await getAgentsScreen(pool, viewer, { leaseMs: env().AGENT_LEDGER_LEASE_MS });

  return (
    <>
      <PageHeader
        title="Agents"
        description="What the workers run, as each worker published it when it started: every agent's code version, its tools and what they may do, the MCP servers tools come from, and the worker processes."
        aside={
          <>
            As of <Timestamp iso={screen.asOf} />
          </>
        }
      />
      <div className="space-y-6">
        <Card
          id="agents"
          title="Agents"
          description="The dashboard never loads agent code: a worker publishes its agents, from your own repository, each time it starts."
        >
          {screen.agents.length === 0 ? (
            <EmptyState title="No worker has published an agent yet">
              Start a worker with your agents (
              <code className="font-mono">agent-ledger worker --agents ./dist/agents.js</code>, or{" "}
              <code className="font-mono">startWorker</code> in your own process) and they appear
              here.
            </EmptyState>
          ) : (
            <AgentsTable agents={screen.agents} />
          )}
        </Card>

        {screen.agents.map((agent) => (
          <Card
            key={agent.name}
            id={agentAnchor(agent.name)}
            title={agent.name}
            description={
              <>
                Code version{" "}
                <code className="font-mono text-xs">{agent.version ?? "not recorded"}</code>,
                published by <code className="font-mono text-xs">{agent.publishedBy}</code> at{" "}
                <Timestamp iso={agent.updatedAt} />.
              </>
            }
          >
            <AgentDetails agent={agent} />
          </Card>
        ))}

        <Card
          id="mcp-servers"
          title="MCP servers"
          description="Servers whose tools the agents call through agent-ledger/mcp: each call an intent-keyed effect, with the key in the request's _meta."
        >
          {screen.mcpServers.length === 0 ? (
            <EmptyState title="No MCP tools">
              No published agent uses a tool of an MCP server. Connect one with{" "}
              <code className="font-mono">connectMcp</code> from agent-ledger/mcp.
            </EmptyState>
          ) : (
            <McpServersTable servers={screen.mcpServers} />
          )}
        </Card>

        <Card
          id="workers"
          title="Workers"
          description={`Worker processes live now or seen within the last day, live first${
            screen.workersTotal > WORKERS_SHOWN
              ? ` (the ${WORKERS_SHOWN} most recent of ${screen.workersTotal})`
              : ""
          }. A worker is live while it heartbeats within one task lease.`}
        >
          {screen.workers.length === 0 ? (
            <EmptyState title="No worker seen within a day">
              Tasks wait until a worker that runs their agent starts.
            </EmptyState>
          ) : (
            <WorkersTable workers={screen.workers} />
          )}
        </Card>
      </div>
    </>
  );
}
