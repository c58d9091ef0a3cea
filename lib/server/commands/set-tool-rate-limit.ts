// Set or clear an admin's rate limit for one tool (admins). Every worker applies it to calls of
// attempts claimed after the change, in place of the limit the tool's code declares. The system
// stream records before → after, the code's own limit and who, as `policy.changed` with scope
// `tool:<name>`, beside retry policy changes.
import type pg from "pg";
import { withTransaction } from "../../../db/client";
import type { Principal } from "../../domain/access";
import { type CommandResult, invalid, notFound, refuseWithout } from "../../domain/command-result";
import { TOOL_SCOPE_PREFIX, type ToolLimitChange } from "../../domain/rate-limit";
import { type ToolLimitInput, toolLimitInputSchema } from "../../domain/tool-limit-form";
import { describeIssues } from "../../domain/zod-issues";
import { appendLedger, SYSTEM_STREAM } from "../ledger/append-ledger";
import { catalogToolsOf } from "../queries/list-agents";
import { saveVersionedSetting } from "./versioned-setting";

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
    const result = await saveVersionedSetting<Row>(
      client,
      {
        table: "tool_rate_limits",
        keyColumn: "tool",
        columns: ["limit", "period_ms"],
        what: `the rate limit of ${tool}`,
        nothingToClear: `${tool} has no admin rate limit to clear`,
      },
      {
        key: tool,
        version,
        values: limit && [limit.limit, limit.periodMs],
        actor: principal.actor,
      },
    );
    if (!result.ok) return result;
    const { current, saved } = result.value;
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
