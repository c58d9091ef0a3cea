// The agents screen's parts: the catalog's agents (code version, live workers, where to find
// their tasks), each agent's tools with what they may do (move money, need approval, redact
// arguments) and where they come from, the MCP servers, and the worker processes.
import Link from "next/link";
import { describeRateLimit } from "../../lib/domain/rate-limit";
import type {
  AgentsScreenDto,
  AgentWorkerDto,
  McpServerDto,
} from "../../lib/server/queries/get-agents-screen";
import { ToolSourceMarker } from "../tasks/effects-list";
import { Badge } from "../ui/badge";
import { Table, Td, Th } from "../ui/table";
import { Timestamp } from "../ui/timestamp";

type Agent = AgentsScreenDto["agents"][number];

const linkClass = "font-medium text-sky-800 underline-offset-2 hover:underline";

/** The element id of an agent's section: the summary table's names link to it. */
export function agentAnchor(name: string): string {
  return `agent-${name.replace(/[^A-Za-z0-9_-]/g, "-")}`;
}

function LiveWorkers({ n }: { n: number }) {
  return n > 0 ? (
    <Badge tone="good">{n === 1 ? "1 live worker" : `${n} live workers`}</Badge>
  ) : (
    <Badge tone="warn">No live worker</Badge>
  );
}

function Version({ version }: { version: string | null }) {
  return version === null ? (
    <span className="text-slate-600">not recorded</span>
  ) : (
    <code className="font-mono text-xs break-all">{version}</code>
  );
}

/** "2 per key (agent code)", "5 at once (agent row)", or that nothing limits it. */
function Concurrency({ of }: { of: Agent["concurrency"] }) {
  if (of === null) return <span className="text-slate-600">No limit</span>;
  return (
    <span data-testid="agent-concurrency">
      <span className="font-medium tabular-nums">{of.limit}</span>{" "}
      {of.keyed ? "per key" : "at once"}{" "}
      <span className="text-xs text-slate-600">
        ({of.source === "agent" ? "agent row" : "agent code"})
      </span>
    </span>
  );
}

export function AgentsTable({ agents }: { agents: Agent[] }) {
  return (
    <Table caption="Agents the workers run">
      <thead>
        <tr>
          <Th>Agent</Th>
          <Th>Code version</Th>
          <Th align="right">Tools</Th>
          <Th>Running at once</Th>
          <Th>Workers</Th>
          <Th>Published</Th>
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100">
        {agents.map((a) => (
          <tr key={a.name} data-agent={a.name}>
            <Td>
              <a href={`#${agentAnchor(a.name)}`} className={linkClass}>
                {a.name}
              </a>
            </Td>
            <Td>
              <Version version={a.version} />
            </Td>
            <Td align="right">{a.tools.length}</Td>
            <Td>
              <Concurrency of={a.concurrency} />
            </Td>
            <Td>
              <LiveWorkers n={a.liveWorkers} />
            </Td>
            <Td>
              <Timestamp iso={a.updatedAt} /> by{" "}
              <code className="font-mono text-xs">{a.publishedBy}</code>
            </Td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}

/** What a tool may do, as flags a reviewer reads before approving or replaying it. */
function ToolFlags({ tool }: { tool: Agent["tools"][number] }) {
  const flags = [
    tool.money ? (
      <Badge key="money" tone="warn">
        Moves money · two reviewers
      </Badge>
    ) : null,
    tool.requiresApproval ? (
      <Badge key="approval" tone="warn">
        Needs approval
      </Badge>
    ) : null,
    tool.providerIdempotent ? (
      <Badge key="idempotent" tone="good">
        Provider deduplicates by key
      </Badge>
    ) : null,
    tool.reconcile ? (
      <Badge key="reconcile" tone="info">
        Can be checked with the provider
      </Badge>
    ) : null,
    tool.rateLimit ? (
      <Badge key="rate-limit" tone="info">
        Rate limit · {describeRateLimit(tool.rateLimit)}
        {tool.rateLimitByAdmin ? " (set by an admin)" : ""}
      </Badge>
    ) : null,
  ].filter((f) => f !== null);
  return (
    <div className="flex flex-wrap gap-1">
      {flags.length > 0 ? flags : <span className="text-slate-600">None</span>}
    </div>
  );
}

export function ToolsTable({ agent }: { agent: Agent }) {
  if (agent.tools.length === 0) {
    return <p className="text-sm text-slate-600">This agent declares no tools.</p>;
  }
  return (
    <Table caption={`Tools of ${agent.name}`}>
      <thead>
        <tr>
          <Th>Tool</Th>
          <Th>Source</Th>
          <Th>What it may do</Th>
          <Th>Redacted arguments</Th>
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100">
        {agent.tools.map((t) => (
          <tr key={t.name} data-tool={t.name}>
            <Td>
              <code className="font-mono text-xs">{t.name}</code>
              {t.description ? (
                <p className="mt-0.5 max-w-md text-xs text-slate-600">{t.description}</p>
              ) : null}
            </Td>
            <Td>{t.source ? <ToolSourceMarker source={t.source} /> : "The agent's code"}</Td>
            <Td>
              <ToolFlags tool={t} />
            </Td>
            <Td>
              {t.sensitive.length > 0 ? (
                <code className="font-mono text-xs">{t.sensitive.join(", ")}</code>
              ) : (
                <span className="text-slate-600">None</span>
              )}
            </Td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}

/** The agent's links, its concurrency limit, its tools and its input's JSON Schema. */
export function AgentDetails({ agent }: { agent: Agent }) {
  const query = `agent=${encodeURIComponent(agent.name)}`;
  return (
    <div className="space-y-4">
      <p className="flex flex-wrap gap-x-4 gap-y-1 text-sm">
        <Link href={`/tasks?${query}`} className={linkClass}>
          Tasks of {agent.name}
        </Link>
        <Link href={`/dead-letters?${query}`} className={linkClass}>
          Its dead letters
        </Link>
        <Link href="/settings/retry-policies#in-force" className={linkClass}>
          Its retry policy
        </Link>
      </p>
      <p className="text-sm text-slate-700">
        Concurrency limit: <Concurrency of={agent.concurrency} />
      </p>
      <ToolsTable agent={agent} />
      <details className="text-sm">
        <summary className="cursor-pointer font-medium text-slate-800">
          Input schema (JSON Schema, as the worker published it)
        </summary>
        <pre className="mt-2 max-h-80 overflow-auto rounded-md bg-slate-50 p-3 font-mono text-xs text-slate-800">
          {JSON.stringify(agent.inputSchema, null, 2)}
        </pre>
      </details>
    </div>
  );
}

export function McpServersTable({ servers }: { servers: McpServerDto[] }) {
  return (
    <Table caption="MCP servers the agents' tools come from">
      <thead>
        <tr>
          <Th>Server</Th>
          <Th>Transport</Th>
          <Th>Tools (as the agent calls them ← on the server)</Th>
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100">
        {servers.map((s) => (
          <tr key={s.name} data-mcp-server={s.name}>
            <Td>
              <span className="font-medium">{s.name}</span>
            </Td>
            <Td>{s.transport === "stdio" ? "stdio (a local process)" : "Streamable HTTP"}</Td>
            <Td>
              <ul className="space-y-0.5">
                {s.tools.map((t) => (
                  <li key={`${t.agent}/${t.name}`}>
                    <code className="font-mono text-xs">{t.name}</code> ←{" "}
                    <code className="font-mono text-xs">{t.tool}</code>{" "}
                    <span className="text-slate-600">({t.agent})</span>
                  </li>
                ))}
              </ul>
            </Td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}

function WorkerState({ worker }: { worker: AgentWorkerDto }) {
  if (worker.live) return <Badge tone="good">Live</Badge>;
  if (worker.stoppedAt !== null) return <Badge>Stopped</Badge>;
  return <Badge tone="warn">Not seen within a lease</Badge>;
}

export function WorkersTable({ workers }: { workers: AgentWorkerDto[] }) {
  return (
    <Table caption="Worker processes">
      <thead>
        <tr>
          <Th>Worker</Th>
          <Th>State</Th>
          <Th>Agents</Th>
          <Th>Started</Th>
          <Th>Last seen</Th>
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100">
        {workers.map((w) => (
          <tr key={w.id} data-worker={w.id}>
            <Td>
              <code className="font-mono text-xs">{w.id}</code>
              <p className="text-xs text-slate-600">
                {w.host}, pid {w.pid}
              </p>
            </Td>
            <Td>
              <WorkerState worker={w} />
            </Td>
            <Td>{w.agents.join(", ")}</Td>
            <Td>
              <Timestamp iso={w.startedAt} />
            </Td>
            <Td>
              <Timestamp iso={w.stoppedAt ?? w.lastSeenAt} />
            </Td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
