// The spend screen: model spend over a window of UTC days by day, agent, model and tool, the
// share spent on tasks that ended dead or rejected, and the most expensive tasks. Reads only the
// counters the model calls and the task_spend trigger keep (db/schema/spend.ts: a few rows per
// day, agent and model, whatever the ledger holds) and the top of tasks_cost_idx, in one
// read-only snapshot so the figures agree with each other.
import type pg from "pg";
import { z } from "zod";
import { withTransaction } from "../../../db/client";
import { requireScope, type Viewer } from "../../domain/access";

/** The scope the spend screen and its export ask: ops and admins, not reviewers. */
export const SPEND_SCOPE = "metrics:read" as const;
export const SPEND_DEFAULT_DAYS = 30;
export const SPEND_MAX_DAYS = 366;
export const SPEND_TOP_TASKS = 10;
/** How the '' tool (a model answer that proposed no tool call) is shown. */
export const NO_TOOL_LABEL = "No tool (text answer)";

const day = z.iso.date({ error: "must be a day as YYYY-MM-DD (UTC)." });
const name = z.string().trim().min(1).max(200, { error: "must be at most 200 characters." });

/** The spend screen's address: `/spend?from=2026-11-01&to=2026-11-30&agent=…&model=…&tool=…`. */
export const spendSearchSchema = z
  .object({
    from: day.optional(),
    to: day.optional(),
    agent: name.optional(),
    model: name.optional(),
    /** A tool name; `-` for the answers that proposed no tool. */
    tool: name.optional(),
  })
  .refine((s) => s.from === undefined || s.to === undefined || s.from <= s.to, {
    error: "the window's start (from) must not be after its end (to).",
  })
  .refine(
    (s) => s.from === undefined || s.to === undefined || daysBetween(s.from, s.to) < SPEND_MAX_DAYS,
    {
      error: `the window may span at most ${SPEND_MAX_DAYS} days.`,
    },
  );
export type SpendSearch = z.output<typeof spendSearchSchema>;

/** The address value that stands for the '' tool. */
export const NO_TOOL_PARAM = "-";

function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

function addDays(date: string, n: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
}

/**
 * The window a search names, given today (UTC): both ends as given, one end and the default
 * length, or the last 30 days including today.
 */
export function spendWindow(search: SpendSearch, today: string): { from: string; to: string } {
  const to =
    search.to ??
    (search.from ? minDay(addDays(search.from, SPEND_DEFAULT_DAYS - 1), today) : today);
  const from = search.from ?? addDays(to, -(SPEND_DEFAULT_DAYS - 1));
  return { from, to };
}

function minDay(a: string, b: string): string {
  return a < b ? a : b;
}

export type SpendFigures = {
  cost: number;
  calls: number;
  unpricedCalls: number;
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  reasoningTokens: number;
};

export type SpendRowDto = SpendFigures & {
  /** The row's agent or model. */
  key: string;
  /** cost / the window's cost; null when nothing was spent. */
  share: number | null;
};

export type SpendToolDto = {
  /** '' for answers that proposed no tool. */
  tool: string;
  label: string;
  /** Model answers that proposed this tool. */
  decisions: number;
  cost: number;
  share: number | null;
};

export type SpendTaskDto = {
  id: string;
  agent: string;
  status: string;
  cost: number;
  createdAt: string;
};

export type SpendDto = {
  from: string;
  to: string;
  search: SpendSearch;
  totals: SpendFigures;
  /** One entry per day of the window, oldest first, zero-filled. */
  days: { day: string; cost: number; calls: number }[];
  byAgent: SpendRowDto[];
  byModel: SpendRowDto[];
  byTool: SpendToolDto[];
  /**
   * What tasks created in the window (by their UTC creation day) have spent, and how much of it
   * went to tasks that are now dead or rejected.
   */
  wasted: {
    taskCost: number;
    deadCost: number;
    rejectedCost: number;
    deadTasks: number;
    rejectedTasks: number;
    share: number | null;
  };
  topTasks: SpendTaskDto[];
  /** Agents, models and tools with counters in the window, for the filter's choices. */
  choices: { agents: string[]; models: string[]; tools: string[] };
  asOf: string;
};

type FigureRow = {
  key: string;
  cost: number;
  calls: string;
  unpriced_calls: string;
  input_tokens: string;
  output_tokens: string;
  cached_input_tokens: string;
  reasoning_tokens: string;
};

const FIGURES = `coalesce(sum(cost), 0)::float8 as cost, coalesce(sum(calls), 0) as calls,
  coalesce(sum(unpriced_calls), 0) as unpriced_calls, coalesce(sum(input_tokens), 0) as input_tokens,
  coalesce(sum(output_tokens), 0) as output_tokens,
  coalesce(sum(cached_input_tokens), 0) as cached_input_tokens,
  coalesce(sum(reasoning_tokens), 0) as reasoning_tokens`;

function figures(r: FigureRow | undefined): SpendFigures {
  return {
    cost: r?.cost ?? 0,
    calls: Number(r?.calls ?? 0),
    unpricedCalls: Number(r?.unpriced_calls ?? 0),
    inputTokens: Number(r?.input_tokens ?? 0),
    outputTokens: Number(r?.output_tokens ?? 0),
    cachedInputTokens: Number(r?.cached_input_tokens ?? 0),
    reasoningTokens: Number(r?.reasoning_tokens ?? 0),
  };
}

const shareOf = (part: number, whole: number) => (whole > 0 ? part / whole : null);

export type SpendExportRow = SpendFigures & { day: string; agent: string; model: string };

/** The window's spend per day, agent and model (the export), summed over writing backends. */
export async function readSpendRows(
  client: pg.ClientBase,
  window: { from: string; to: string },
  search: SpendSearch,
): Promise<SpendExportRow[]> {
  const { rows } = await client.query<FigureRow & { day: string; agent: string; model: string }>({
    text: `select day::text as day, agent, model, '' as key, ${FIGURES}
             from spend_daily
            where day between $1::date and $2::date
              and ($3::text is null or agent = $3) and ($4::text is null or model = $4)
            group by day, agent, model
            order by day, agent, model`,
    values: [window.from, window.to, search.agent ?? null, search.model ?? null],
  });
  return rows.map((r) => ({ day: r.day, agent: r.agent, model: r.model, ...figures(r) }));
}

async function today(client: pg.ClientBase): Promise<{ today: string; asOf: string }> {
  const { rows } = await client.query<{ today: string; as_of: Date }>(
    "select (now() at time zone 'UTC')::date::text as today, now() as as_of",
  );
  const row = rows[0];
  if (!row) throw new Error("the database did not say what day it is");
  return { today: row.today, asOf: row.as_of.toISOString() };
}

/** The spend screen's figures for ops and admins (SPEND_SCOPE). */
export async function getSpend(
  pool: pg.Pool,
  viewer: Viewer | null,
  search: SpendSearch,
): Promise<SpendDto> {
  requireScope(viewer, SPEND_SCOPE);
  return withTransaction(pool, async (client) => {
    await client.query("set transaction isolation level repeatable read, read only");
    const clock = await today(client);
    const { from, to } = spendWindow(search, clock.today);
    const agent = search.agent ?? null;
    const model = search.model ?? null;
    const tool =
      search.tool === undefined ? null : search.tool === NO_TOOL_PARAM ? "" : search.tool;
    const base = [from, to, agent, model];
    const where = `day between $1::date and $2::date
      and ($3::text is null or agent = $3) and ($4::text is null or model = $4)`;

    const grouped = async (key: "agent" | "model" | "day") =>
      (
        await client.query<FigureRow>({
          text: `select ${key}::text as key, ${FIGURES} from spend_daily where ${where}
                  group by 1 order by 2 desc, 1`,
          values: base,
        })
      ).rows;
    const total = (
      await client.query<FigureRow>({
        text: `select '' as key, ${FIGURES} from spend_daily where ${where}`,
        values: base,
      })
    ).rows[0];
    const totals = figures(total);
    const perDay = new Map((await grouped("day")).map((r) => [r.key, figures(r)]));
    const days: SpendDto["days"] = [];
    for (let d = from; d <= to; d = addDays(d, 1)) {
      const f = perDay.get(d);
      days.push({ day: d, cost: f?.cost ?? 0, calls: f?.calls ?? 0 });
    }
    const rowsOf = (rows: FigureRow[]): SpendRowDto[] =>
      rows.map((r) => {
        const f = figures(r);
        return { key: r.key, ...f, share: shareOf(f.cost, totals.cost) };
      });
    const byAgent = rowsOf(await grouped("agent"));
    const byModel = rowsOf(await grouped("model"));

    // The tool counters know no model: the model filter does not narrow them.
    const toolRows = await client.query<{ tool: string; decisions: string; cost: number }>({
      text: `select tool, sum(decisions) as decisions, sum(cost)::float8 as cost
               from spend_tool_daily
              where day between $1::date and $2::date
                and ($3::text is null or agent = $3) and ($4::text is null or tool = $4)
              group by tool order by 3 desc, 1`,
      values: [from, to, agent, tool],
    });
    const toolCost = toolRows.rows.reduce((sum, r) => sum + r.cost, 0);
    const byTool = toolRows.rows.map((r) => ({
      tool: r.tool,
      label: r.tool === "" ? NO_TOOL_LABEL : r.tool,
      decisions: Number(r.decisions),
      cost: r.cost,
      share: shareOf(r.cost, toolCost),
    }));

    const statusRows = await client.query<{ status: string; tasks: string; cost: number }>({
      text: `select status, sum(tasks) as tasks, sum(cost)::float8 as cost
               from task_spend
              where day between $1::date and $2::date and ($3::text is null or agent = $3)
              group by status`,
      values: [from, to, agent],
    });
    const byStatus = (s: string) => statusRows.rows.find((r) => r.status === s);
    const taskCost = statusRows.rows.reduce((sum, r) => sum + r.cost, 0);
    const deadCost = byStatus("dead")?.cost ?? 0;
    const rejectedCost = byStatus("rejected")?.cost ?? 0;

    // tasks_cost_idx (cost desc nulls last, id desc nulls last, where cost > 0): the walk stops
    // after ten matches. The order must name the index's NULLS LAST (cost is never null, but the
    // planner does not know the order is the same): plain `desc` sorted 100k tasks per read.
    const top = await client.query<{
      id: string;
      agent: string;
      status: string;
      cost: number;
      created_at: Date;
    }>({
      text: `select id, agent, status, cost, created_at from tasks
              where cost > 0 and created_at >= $1::date at time zone 'UTC'
                and created_at < ($2::date + 1) at time zone 'UTC'
                and ($3::text is null or agent = $3)
              order by cost desc nulls last, id desc nulls last limit ${SPEND_TOP_TASKS}`,
      values: [from, to, agent],
    });

    const choices = await client.query<{ kind: string; name: string }>({
      text: `select distinct 'agent' as kind, agent as name from spend_daily where day between $1::date and $2::date
             union select distinct 'model', model from spend_daily where day between $1::date and $2::date
             union select distinct 'tool', tool from spend_tool_daily where day between $1::date and $2::date
             order by 1, 2`,
      values: [from, to],
    });
    const choice = (kind: string) => choices.rows.filter((r) => r.kind === kind).map((r) => r.name);

    return {
      from,
      to,
      search,
      totals,
      days,
      byAgent,
      byModel,
      byTool,
      wasted: {
        taskCost,
        deadCost,
        rejectedCost,
        deadTasks: Number(byStatus("dead")?.tasks ?? 0),
        rejectedTasks: Number(byStatus("rejected")?.tasks ?? 0),
        share: shareOf(deadCost + rejectedCost, taskCost),
      },
      topTasks: top.rows.map((r) => ({
        id: r.id,
        agent: r.agent,
        status: r.status,
        cost: r.cost,
        createdAt: r.created_at.toISOString(),
      })),
      choices: { agents: choice("agent"), models: choice("model"), tools: choice("tool") },
      asOf: clock.asOf,
    };
  });
}

/** The export: the window's rows per day, agent and model, for the same viewers as the screen. */
export async function getSpendRows(
  pool: pg.Pool,
  viewer: Viewer | null,
  search: SpendSearch,
): Promise<{ from: string; to: string; rows: SpendExportRow[] }> {
  requireScope(viewer, SPEND_SCOPE);
  return withTransaction(pool, async (client) => {
    await client.query("set transaction isolation level repeatable read, read only");
    const window = spendWindow(search, (await today(client)).today);
    return { ...window, rows: await readSpendRows(client, window, search) };
  });
}
