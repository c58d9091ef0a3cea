// The tool rate limits on the policies screen: every tool a worker published, the limit its code
// declares, an admin's limit where one is set (with its version, for the edit form) and which is
// in force; and admins' limits for tools no published agent declares any more.
import { asc } from "drizzle-orm";
import type { Db } from "../../../db/client";
import { agentCatalog, toolRateLimits } from "../../../db/schema";
import { requireScope, type Viewer } from "../../domain/access";
import { type KeyedRateLimit, type RateLimitSpec, toolLimitInForce } from "../../domain/rate-limit";
import { catalogToolsOf } from "./list-agents";

export type ToolLimitDto = {
  tool: string;
  /** The published agents that declare the tool, by name. */
  agents: string[];
  /** What the tool's code declares; null for none. */
  code: KeyedRateLimit | null;
  /** An admin's limit; null when none is set. */
  admin: (RateLimitSpec & { version: number; updatedBy: string; updatedAt: string }) | null;
  /** The limit calls are held to (the admin's wins, bucketed per key when the code keys it). */
  inForce: ReturnType<typeof toolLimitInForce>;
};

export async function listToolLimits(db: Db, viewer: Viewer | null): Promise<ToolLimitDto[]> {
  requireScope(viewer, "tasks:read");
  const [catalog, admins] = await Promise.all([
    db
      .select({ name: agentCatalog.name, tools: agentCatalog.tools })
      .from(agentCatalog)
      .orderBy(asc(agentCatalog.name)),
    db.select().from(toolRateLimits),
  ]);
  const byTool = new Map<string, { agents: string[]; code: ToolLimitDto["code"] }>();
  for (const row of catalog) {
    for (const t of catalogToolsOf(row.tools)) {
      const seen = byTool.get(t.name) ?? { agents: [], code: null };
      seen.agents.push(row.name);
      seen.code ??= t.rateLimit;
      byTool.set(t.name, seen);
    }
  }
  const adminOf = new Map(admins.map((a) => [a.tool, a]));
  const names = [...new Set([...byTool.keys(), ...adminOf.keys()])].sort((a, b) =>
    a.localeCompare(b),
  );
  return names.map((tool): ToolLimitDto => {
    const declared = byTool.get(tool);
    const code = declared?.code ?? null;
    const row = adminOf.get(tool);
    const admin = row
      ? {
          limit: row.limit,
          periodMs: row.periodMs,
          version: row.version,
          updatedBy: row.updatedBy,
          updatedAt: row.updatedAt.toISOString(),
        }
      : null;
    return {
      tool,
      agents: declared?.agents ?? [],
      code,
      admin,
      inForce: toolLimitInForce(code, admin),
    };
  });
}
