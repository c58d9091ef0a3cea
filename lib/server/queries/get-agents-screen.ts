// The agents screen: what the workers run, as they published it (the catalog: each agent's code
// version, tools and their flags, where a tool comes from), the MCP servers those tools come
// from, and the worker processes that run them now. The web app never loads agent code: a team's
// workers publish their agents at start, from their own repository.
import type pg from "pg";
import { requireScope, type Viewer } from "../../domain/access";
import { toolLimitInForce } from "../../domain/rate-limit";
import { type AgentDto, type CatalogToolDto, listAgents, type ToolSourceDto } from "./list-agents";
import { liveWorkerSql } from "./worker-liveness";

export type AgentWorkerDto = {
  id: string;
  host: string;
  pid: number;
  agents: string[];
  startedAt: string;
  lastSeenAt: string;
  stoppedAt: string | null;
  live: boolean;
};

export type McpServerDto = {
  name: string;
  transport: ToolSourceDto["transport"];
  /** Its tools as the agents know them (`<server>_<tool>`), with the agent that uses each. */
  tools: { agent: string; name: string; tool: string }[];
};

/**
 * How many of the agent's tasks may run at once (issue 21): the admin's row over the code's, and
 * whether it counts per concurrency key. Null when neither sets a limit.
 */
export type ConcurrencyDto = { limit: number; source: "agent" | "code"; keyed: boolean };

export type AgentsScreenDto = {
  asOf: string;
  agents: (Omit<AgentDto, "tools"> & {
    /** Each tool's rate limit is the one in force: an admin's (`rateLimitByAdmin`) over the code's. */
    tools: (CatalogToolDto & { rateLimitByAdmin: boolean })[];
    liveWorkers: number;
    concurrency: ConcurrencyDto | null;
  })[];
  mcpServers: McpServerDto[];
  /**
   * Workers seen within the last day (a live one always is: a lease is at most an hour), live
   * first, at most WORKERS_SHOWN.
   */
  workers: AgentWorkerDto[];
  /** How many such workers there are in all (the list may be cut at WORKERS_SHOWN). */
  workersTotal: number;
};

export const WORKERS_SHOWN = 50;

type WorkerRow = {
  id: string;
  host: string;
  pid: number;
  agents: string[];
  started_at: Date;
  last_seen_at: Date;
  stopped_at: Date | null;
  live: boolean;
};

/** The MCP servers the catalog's tools come from, by server name, each tool with its agent. */
export function mcpServersOf(agents: readonly AgentDto[]): McpServerDto[] {
  const servers = new Map<string, McpServerDto>();
  for (const agent of agents) {
    for (const tool of agent.tools) {
      if (!tool.source) continue;
      const server = servers.get(tool.source.server) ?? {
        name: tool.source.server,
        transport: tool.source.transport,
        tools: [],
      };
      server.tools.push({ agent: agent.name, name: tool.name, tool: tool.source.tool });
      servers.set(server.name, server);
    }
  }
  return [...servers.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

export async function getAgentsScreen(
  pool: pg.Pool,
  viewer: Viewer | null,
  opts: { leaseMs: number },
): Promise<AgentsScreenDto> {
  requireScope(viewer, "tasks:read");
  const agents = await listAgents(pool, viewer);
  const [workers, live, limits, toolLimits, clock] = await Promise.all([
    pool.query<WorkerRow & { total: number }>({
      name: "agents_screen_workers",
      text: `select id, host, pid, agents, started_at, last_seen_at, stopped_at,
                    (${liveWorkerSql("$1")}) as live, count(*) over ()::int as total
               from workers
              where role = 'worker' and last_seen_at > now() - interval '1 day'
              order by live desc, last_seen_at desc, id
              limit $2`,
      values: [opts.leaseMs, WORKERS_SHOWN],
    }),
    pool.query<{ agent: string; n: number }>({
      name: "agents_screen_live_per_agent",
      text: `select agent, count(*)::int as n
               from workers, unnest(agents) as agent
              where ${liveWorkerSql("$1")}
              group by agent`,
      values: [opts.leaseMs],
    }),
    // A published code limit that is not a number (another writer's row) counts as none.
    pool.query<{
      agent: string;
      code_limit: number | null;
      row_limit: number | null;
      keyed: boolean;
    }>({
      name: "agents_screen_concurrency",
      text: `select c.name as agent, c.concurrency_keyed as keyed, p.concurrency_limit as row_limit,
                    case when jsonb_typeof(c.policy -> 'concurrencyLimit') = 'number'
                         then (c.policy ->> 'concurrencyLimit')::numeric::int end as code_limit
               from agent_catalog c
               left join retry_policies p on p.scope = 'agent:' || c.name`,
    }),
    pool.query<{ tool: string; limit: number; period_ms: number }>({
      name: "agents_screen_tool_limits",
      text: `select tool, "limit", period_ms from tool_rate_limits`,
    }),
    pool.query<{ now: Date }>("select now() as now"),
  ]);
  const adminLimitOf = new Map(toolLimits.rows.map((r) => [r.tool, r]));
  const liveOf = new Map(live.rows.map((r) => [r.agent, r.n]));
  const concurrencyOf = new Map(
    limits.rows.map((r): [string, ConcurrencyDto | null] => [
      r.agent,
      r.row_limit !== null
        ? { limit: r.row_limit, source: "agent", keyed: r.keyed }
        : r.code_limit !== null
          ? { limit: r.code_limit, source: "code", keyed: r.keyed }
          : null,
    ]),
  );
  return {
    asOf: (clock.rows[0]?.now ?? new Date()).toISOString(),
    agents: agents.map((a) => ({
      ...a,
      tools: a.tools.map((t) => {
        const admin = adminLimitOf.get(t.name);
        const inForce = toolLimitInForce(
          t.rateLimit,
          admin ? { limit: admin.limit, periodMs: admin.period_ms } : null,
        );
        return {
          ...t,
          rateLimit: inForce && {
            limit: inForce.limit,
            periodMs: inForce.periodMs,
            keyed: inForce.keyed,
          },
          rateLimitByAdmin: inForce?.source === "admin",
        };
      }),
      liveWorkers: liveOf.get(a.name) ?? 0,
      concurrency: concurrencyOf.get(a.name) ?? null,
    })),
    mcpServers: mcpServersOf(agents),
    workers: workers.rows.map((w) => ({
      id: w.id,
      host: w.host,
      pid: w.pid,
      agents: w.agents,
      startedAt: w.started_at.toISOString(),
      lastSeenAt: w.last_seen_at.toISOString(),
      stoppedAt: w.stopped_at?.toISOString() ?? null,
      live: w.live,
    })),
    workersTotal: workers.rows[0]?.total ?? 0,
  };
}
