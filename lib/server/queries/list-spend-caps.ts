// The daily spend budgets on the policies screen: every published agent and every agent with a
// cap, its cap (with its version, for the edit form) and what it has spent today (UTC), from the
// spend_daily counters, so an admin sees how near the cap each agent is.
import { sql } from "drizzle-orm";
import type { Db } from "../../../db/client";
import { requireScope, type Viewer } from "../../domain/access";
import type { SpendCap } from "../../domain/spend-cap-form";

export type SpendCapDto = {
  agent: string;
  /** The agent's cap; null when none is set. */
  cap: (SpendCap & { version: number; updatedBy: string; updatedAt: string }) | null;
  /** Model spend today (UTC), over all its tasks. */
  spentToday: number;
};

type Row = {
  agent: string;
  daily_limit: number | null;
  key_path: string | null;
  key_daily_limit: number | null;
  on_exceed: "wait" | "dead" | null;
  version: number | null;
  updated_by: string | null;
  updated_at: string | null;
  spent: number;
};

export async function listSpendCaps(db: Db, viewer: Viewer | null): Promise<SpendCapDto[]> {
  requireScope(viewer, "tasks:read");
  const rows = await db.execute<Row>(sql`
    with agents as (select name as agent from agent_catalog union select agent from spend_caps),
    spent as (
      select agent, sum(cost)::float8 as spent from spend_daily
      where day = (now() at time zone 'UTC')::date group by agent
    )
    select a.agent, c.daily_limit, c.key_path, c.key_daily_limit, c.on_exceed, c.version,
      c.updated_by, to_char(c.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as updated_at,
      coalesce(s.spent, 0) as spent
    from agents a left join spend_caps c on c.agent = a.agent left join spent s on s.agent = a.agent
    order by a.agent`);
  return rows.rows.map((r) => ({
    agent: r.agent,
    cap:
      r.version === null || r.on_exceed === null || r.updated_by === null || r.updated_at === null
        ? null
        : {
            dailyLimit: r.daily_limit,
            keyPath: r.key_path,
            keyDailyLimit: r.key_daily_limit,
            onExceed: r.on_exceed,
            version: r.version,
            updatedBy: r.updated_by,
            updatedAt: r.updated_at,
          },
    spentToday: Number(r.spent),
  }));
}
