// An admin's rate limit for a tool, against a real database: set, changed and cleared from the
// policies screen's command with the version guard, recorded in the ledger as before → after
// beside the code's own limit, shown on the policies and agents screens, and held to by the
// worker's calls in place of the code's (or where the code sets none).
import { afterEach, describe, expect, it } from "vitest";
import { setUpTestDatabase } from "../../db/testing/database";
import { testViewer } from "../../lib/auth/testing";
import { principalOf } from "../../lib/domain/access";
import { summarizeEntry } from "../../lib/domain/ledger-summary";
import { toolLimitFormSchema } from "../../lib/domain/tool-limit-form";
import { setToolRateLimit } from "../../lib/server/commands/set-tool-rate-limit";
import { getAgentsScreen } from "../../lib/server/queries/get-agents-screen";
import { listRetryPolicies } from "../../lib/server/queries/list-retry-policies";
import { listToolLimits } from "../../lib/server/queries/list-tool-limits";
import { publishCatalog } from "./catalog";
import { pingAgent, runtimeTestKit } from "./test-support";

const t = await setUpTestDatabase("tool_limit_admin");
const kit = runtimeTestKit(t.pool);
const admin = principalOf(testViewer("admin", "ada@example.com"));
const ops = testViewer("ops");

const form = (tool: string, version: number | null, limit: string, periodSeconds: string) =>
  toolLimitFormSchema.parse({ tool, version: version ?? "", limit, periodSeconds });

const changes = async () =>
  (
    await t.pool.query<{ actor: string; data: Record<string, unknown> }>(
      `select actor, data from ledger_entries where kind = 'policy.changed' order by id`,
    )
  ).rows;

afterEach(async () => {
  await t.pool.query("delete from tool_rate_limits");
});

describe("an admin's tool rate limit", () => {
  it("is set, changed on the version loaded and cleared, each change in the ledger", async () => {
    const { agent, tool } = pingAgent("tl-coded", { limit: 10, periodMs: 1_000 });
    await publishCatalog(t.pool, [agent], "w-tl");
    const before = (await changes()).length;

    const set = await setToolRateLimit(t.pool, admin, form(tool, null, "5", "1"));
    expect(set).toEqual({ ok: true, value: { tool, version: 1 } });
    // A second admin who loaded the page before the first saved is refused, not obeyed.
    const stale = await setToolRateLimit(t.pool, admin, form(tool, null, "7", "1"));
    expect(stale).toMatchObject({ ok: false, code: "conflict" });
    expect(await setToolRateLimit(t.pool, admin, form(tool, 1, "2", "0.5"))).toMatchObject({
      ok: true,
      value: { version: 2 },
    });
    expect(await setToolRateLimit(t.pool, admin, form(tool, 2, "", ""))).toEqual({
      ok: true,
      value: { tool, version: null },
    });

    const recorded = (await changes()).slice(before);
    expect(recorded.map((e) => e.actor)).toEqual([admin.actor, admin.actor, admin.actor]);
    expect(recorded.map((e) => summarizeEntry({ kind: "policy.changed", ...e } as never))).toEqual([
      `by: ada@example.com · scope: tool:${tool} · Rate limit 10 calls per 1 s (agent code) → 5 calls per 1 s`,
      `by: ada@example.com · scope: tool:${tool} · Rate limit 5 calls per 1 s → 2 calls per 500 ms`,
      `by: ada@example.com · scope: tool:${tool} · Rate limit 2 calls per 500 ms → 10 calls per 1 s (agent code)`,
    ]);
    const history = (await listRetryPolicies(t.db, ops)).changes.filter(
      (c) => c.scope === `tool:${tool}`,
    );
    expect(history[0]?.setting).toEqual({
      field: "rateLimit",
      label: "Rate limit",
      before: "2 calls per 500 ms",
      after: "10 calls per 1 s (agent code)",
    });
  });

  it("refuses who may not, a tool no agent has, half a limit and bounds it does not meet", async () => {
    const { agent, tool } = pingAgent("tl-refusals");
    await publishCatalog(t.pool, [agent], "w-tl");
    const reviewer = principalOf(testViewer("reviewer"));
    expect(await setToolRateLimit(t.pool, reviewer, form(tool, null, "5", "1"))).toMatchObject({
      ok: false,
      code: "forbidden",
    });
    expect(
      await setToolRateLimit(t.pool, admin, form("no_such_tool", null, "5", "1")),
    ).toMatchObject({ ok: false, code: "not_found", message: expect.stringContaining("no_such") });
    expect(await setToolRateLimit(t.pool, admin, form(tool, null, "", ""))).toMatchObject({
      ok: false,
      code: "invalid",
    });
    const half = toolLimitFormSchema.safeParse({ tool, limit: "5", periodSeconds: "" });
    expect(half.success ? [] : half.error.issues.map((i) => `${i.path}: ${i.message}`)).toEqual([
      "periodSeconds: is required with calls",
    ]);
    const out = toolLimitFormSchema.safeParse({ tool, limit: "0", periodSeconds: "1e309" });
    expect(out.success ? [] : out.error.issues.map((i) => `${i.path}: ${i.message}`)).toEqual([
      "limit: must be at least 1",
      "periodSeconds: must be at most 86,400 s",
    ]);
    expect((await t.pool.query("select count(*)::int as n from tool_rate_limits")).rows[0]?.n).toBe(
      0,
    );
  });

  it("is shown as the limit in force on the policies and agents screens", async () => {
    const { agent, tool } = pingAgent("tl-shown", { limit: 10, periodMs: 1_000 });
    await publishCatalog(t.pool, [agent], "w-tl");
    expect((await listToolLimits(t.db, ops)).find((x) => x.tool === tool)?.inForce).toEqual({
      limit: 10,
      periodMs: 1_000,
      keyed: false,
      source: "code",
    });
    await setToolRateLimit(t.pool, admin, form(tool, null, "3", "60"));
    const shown = (await listToolLimits(t.db, ops)).find((x) => x.tool === tool);
    expect(shown).toMatchObject({
      agents: ["tl-shown"],
      code: { limit: 10, periodMs: 1_000 },
      admin: { limit: 3, periodMs: 60_000, version: 1, updatedBy: admin.actor },
      inForce: { limit: 3, periodMs: 60_000, source: "admin" },
    });
    const screen = await getAgentsScreen(t.pool, ops, { leaseMs: 30_000 });
    const onScreen = screen.agents.find((a) => a.name === "tl-shown")?.tools[0];
    expect(onScreen).toMatchObject({ rateLimit: { limit: 3, periodMs: 60_000 } });
    expect(onScreen?.rateLimitByAdmin).toBe(true);
  });

  it("holds the worker's calls to it, in place of the code's or where the code sets none", async () => {
    const { agent, tool, calls } = pingAgent("tl-held");
    await publishCatalog(t.pool, [agent], "w-tl");
    await setToolRateLimit(t.pool, admin, form(tool, null, "1", "60"));
    await kit.enqueue(agent.name, { n: 1 });
    const second = await kit.enqueue(agent.name, { n: 2 });
    expect((await kit.runOneAttempt("w-a", [agent]))?.outcome).toBe("succeeded");
    // The code sets no limit; the admin's one call a minute sends the second task back.
    expect((await kit.runOneAttempt("w-a", [agent]))?.outcome).toBe("requeued");
    expect(calls).toHaveLength(1);
    const limited = (await kit.entries(second)).find((e) => e.kind === "effect.rate_limited");
    expect(limited?.data).toMatchObject({ limit: 1, periodMs: 60_000, setBy: "admin" });
    expect((await kit.task(second)).attempts).toBe(0);
  });
});
