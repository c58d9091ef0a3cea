// Set or clear an admin's rate limit for one tool (admins). Every worker applies it to calls of
// attempts claimed after the change, in place of the limit the tool's code declares. The system
// stream records before → after, the code's own limit and who, as `policy.changed` with scope
// `tool:<name>`, beside retry policy changes.
import type pg from "pg";
import { withTransaction } from "../../../db/client";
import type { Principal } from "../../domain/access";
import {
  type CommandResult,
  conflict,
  invalid,
  notFound,
  refuseWithout,
} from "../../domain/command-result";
import { TOOL_SCOPE_PREFIX, type ToolLimitChange } from "../../domain/rate-limit";
import { type ToolLimitInput, toolLimitInputSchema } from "../../domain/tool-limit-form";
import { describeIssues } from "../../domain/zod-issues";
import { appendLedger, SYSTEM_STREAM } from "../ledger/append-ledger";
import { catalogToolsOf } from "../queries/list-agents";

type Row = { limit: number; period_ms: number; version: number };

export async function setToolRateLimit(
  pool: pg.Pool,
  principal: Principal,
  input: ToolLimitInput,
): Promise<CommandResult<{ tool: string; version: number | null }>> {
  const refused = refuseWithout(principal, "policies:write", "change tool rate limits");
  if (refused) return refused;
  // The adapters parse the form already; a caller of the command gets the same bounds.
  const parsed = toolLimitInputSchema.safeParse(input);
  if (!parsed.success) return invalid(describeIssues(parsed.error));
  const { tool, version, limit } = parsed.data;
  return withTransaction(pool, async (client) => {
    const catalog = await client.query<{ tools: unknown }>(
      "select tools from agent_catalog order by name",
    );
    const declared = catalog.rows
      .flatMap((r) => catalogToolsOf(r.tools))
      .filter((t) => t.name === tool);
    if (declared.length === 0) {
      return notFound(`no agent a worker published has a tool named "${tool}"`);
    }
    const code = declared.find((t) => t.rateLimit !== null)?.rateLimit ?? null;
    const { rows } = await client.query<Row>(
      'select "limit", period_ms, version from tool_rate_limits where tool = $1 for update',
      [tool],
    );
    const current = rows[0];
    if ((current?.version ?? null) !== version) {
      return conflict(
        current
          ? `the rate limit of ${tool} changed since you loaded it (now version ${current.version})`
          : `the rate limit of ${tool} was cleared since you loaded it`,
      );
    }
    let saved: number | null = null;
    if (limit === null) {
      if (!current) return invalid(`${tool} has no admin rate limit to clear`);
      await client.query("delete from tool_rate_limits where tool = $1", [tool]);
    } else {
      // No row yet cannot be locked: a concurrent first save makes this insert conflict, and
      // the guard (the version the admin saw, null for none) refuses to overwrite it.
      const upsert = await client.query<{ version: number }>(
        `insert into tool_rate_limits (tool, "limit", period_ms, updated_by) values ($1, $2, $3, $4)
         on conflict (tool) do update set "limit" = excluded.limit, period_ms = excluded.period_ms,
           updated_by = excluded.updated_by, updated_at = now(), version = tool_rate_limits.version + 1
         where tool_rate_limits.version = $5
         returning version`,
        [tool, limit.limit, limit.periodMs, principal.actor, version],
      );
      saved = upsert.rows[0]?.version ?? null;
      if (saved === null) return conflict(`the rate limit of ${tool} changed since you loaded it`);
    }
    const data: ToolLimitChange = {
      scope: `${TOOL_SCOPE_PREFIX}${tool}`,
      before: current ? { limit: current.limit, periodMs: current.period_ms } : null,
      after: limit,
      code,
    };
    await appendLedger(client, SYSTEM_STREAM, {
      kind: "policy.changed",
      actor: principal.actor,
      data,
    });
    return { ok: true as const, value: { tool, version: saved } };
  });
}
