// The agents list reads what the workers publish, against a real database: the demo agents as
// a worker publishes them at start say which tools can be checked with their provider (refund
// reconciles by listing the payment's refunds; SMTP cannot be asked), and a row from a worker
// that predates the flag keeps its tools, none of them checkable.
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { ToolsTable } from "../../../components/agents/agent-catalog";
import { setUpTestDatabase } from "../../../db/testing/database";
import { createAgents } from "../../../worker/agents";
import { catalogEntry, publishCatalog } from "../../../worker/runtime/catalog";
import { testTokenViewer, testViewer } from "../../auth/testing";
import { parseEnv } from "../../env";
import { listAgents } from "./list-agents";

const t = await setUpTestDatabase("list_agents");
const viewer = testViewer("ops");

const toolOf = async (agent: string, tool: string) =>
  (await listAgents(t.pool, viewer))
    .find((a) => a.name === agent)
    ?.tools.find((x) => x.name === tool);

describe("listAgents", () => {
  it("says which tools the provider can be asked about, as the workers published them", async () => {
    await publishCatalog(t.pool, createAgents(parseEnv({})), "worker-1");
    expect(await toolOf("refund", "refund")).toMatchObject({
      reconcile: true,
      money: true,
      providerIdempotent: true,
    });
    expect(await toolOf("invoice-reminder", "send_email")).toMatchObject({
      reconcile: false,
      providerIdempotent: false,
    });
  });

  it("lists each agent's code version as its worker published it", async () => {
    const agents = createAgents(parseEnv({}));
    await publishCatalog(t.pool, agents, "worker-1");
    const listed = await listAgents(t.pool, viewer);
    for (const agent of agents) {
      expect(listed.find((a) => a.name === agent.name)?.version).toBe(catalogEntry(agent).version);
    }
    expect(listed.find((a) => a.name === "refund")?.version).toMatch(/^sha-[0-9a-f]{8}$/);
  });

  it("reads a row from a worker that predates the flag as no tool to check, keeping its tools", async () => {
    await t.pool.query(
      `insert into agent_catalog (name, input_schema, tools, published_by) values ('old-mailer', '{}', $1, 'old')`,
      [
        JSON.stringify([
          {
            name: "send",
            description: null,
            money: false,
            providerIdempotent: false,
            requiresApproval: false,
            sensitive: [],
          },
        ]),
      ],
    );
    expect((await listAgents(t.pool, viewer)).find((a) => a.name === "old-mailer")?.version).toBe(
      null,
    );
    expect(await toolOf("old-mailer", "send")).toEqual({
      name: "send",
      description: null,
      money: false,
      providerIdempotent: false,
      reconcile: false,
      requiresApproval: false,
      sensitive: [],
      source: null,
      rateLimit: null,
    });
  });

  it("publishes a tool's rate limit and shows it on the agents screen", async () => {
    const agents = createAgents(parseEnv({ PAYMENTS_RATE_LIMIT_PER_SECOND: "10" }));
    await publishCatalog(t.pool, agents, "worker-limited");
    expect(await toolOf("refund", "refund")).toMatchObject({
      rateLimit: { limit: 10, periodMs: 1_000, keyed: false },
    });
    expect(await toolOf("invoice-reminder", "send_email")).toMatchObject({ rateLimit: null });
    const refund = (await listAgents(t.pool, viewer)).find((a) => a.name === "refund");
    if (!refund) throw new Error("refund was not published");
    const html = renderToStaticMarkup(
      createElement(ToolsTable, {
        agent: {
          ...refund,
          tools: refund.tools.map((x) => ({ ...x, rateLimitByAdmin: false })),
          liveWorkers: 1,
          concurrency: null,
        },
      }),
    ).replaceAll("<!-- -->", "");
    expect(html).toContain("Rate limit · 10 calls per 1 s");
    // A tool without a limit publishes none, so its agent's derived version stays what it was.
    const [plain] = createAgents(parseEnv({}));
    expect(JSON.stringify(plain && catalogEntry(plain))).not.toContain("rateLimit");
  });

  it("is read by no one without tasks:read", async () => {
    await expect(listAgents(t.pool, null)).rejects.toThrow();
    await expect(listAgents(t.pool, testTokenViewer(["tasks:enqueue"]))).rejects.toThrow();
  });
});
