// The retry policy the worker applies to an agent's task is the one the policies screen says is
// in force, with the agent's code read from what the worker published at start: refund's code
// sets 6 attempts, over the demo's global 5, under an admin's agent:refund row.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { setUpTestDatabase } from "../../db/testing/database";
import { testViewer } from "../../lib/auth/testing";
import { operator } from "../../lib/domain/access";
import { POLICY_FIELDS, type RetryPolicy } from "../../lib/domain/retry-policy";
import { parseEnv } from "../../lib/env";
import { defineAgent } from "../../lib/sdk/define";
import { DEFAULT_POLICY } from "../../lib/server/commands/seed-demo";
import { setPolicy } from "../../lib/server/commands/set-policy";
import { listRetryPolicies } from "../../lib/server/queries/list-retry-policies";
import { createAgents } from "../agents";
import { catalogEntry, publishCatalog } from "./catalog";
import { loadPolicy } from "./policy";

const t = await setUpTestDatabase("catalog-policy");
const admin = operator("user:admin@example.com");
const agents = createAgents(parseEnv({}));
const refund = agents.find((a) => a.name === "refund");
if (!refund) throw new Error("the demo refund agent is missing");

async function screenSays(agent: string) {
  const p = await listRetryPolicies(t.db, testViewer("ops"));
  const row = p.inForce.find((a) => a.agent === agent);
  if (!row) throw new Error(`${agent} is not on the policies screen`);
  return row;
}

const valuesOf = (row: Awaited<ReturnType<typeof screenSays>>): RetryPolicy =>
  Object.fromEntries(POLICY_FIELDS.map((f) => [f, row.fields[f].value])) as RetryPolicy;

describe("the code's retry policy, published and applied", () => {
  it("shows and applies refund's 6 attempts from code, until an admin's row overrides it", async () => {
    await publishCatalog(t.pool, agents, "worker-1");
    expect(
      await setPolicy(t.pool, admin, { scope: "global", version: null, policy: DEFAULT_POLICY }),
    ).toMatchObject({ ok: true });

    const shown = await screenSays("refund");
    expect(shown.fields.maxAttempts).toEqual({ value: 6, source: "code" });
    expect(shown.fields.backoffInitialMs).toEqual({ value: 500, source: "code" });
    expect(shown.fields.backoffFactor.source).toBe("global");
    const applied = await loadPolicy(t.pool, "refund", refund.policy, null);
    expect(applied.maxAttempts).toBe(6);
    expect(applied).toEqual(valuesOf(shown));

    expect(
      await setPolicy(t.pool, admin, {
        scope: "agent:refund",
        version: null,
        policy: { maxAttempts: 3 },
      }),
    ).toMatchObject({ ok: true });
    const lowered = await screenSays("refund");
    expect(lowered.fields.maxAttempts).toEqual({ value: 3, source: "agent" });
    expect(lowered.inherited.maxAttempts).toEqual({ value: 6, source: "code" });
    const appliedNow = await loadPolicy(t.pool, "refund", refund.policy, null);
    expect(appliedNow.maxAttempts).toBe(3);
    expect(appliedNow).toEqual(valuesOf(lowered));
  });

  it("agrees for every demo agent", async () => {
    for (const agent of agents) {
      const applied = await loadPolicy(t.pool, agent.name, agent.policy, null);
      expect(applied).toEqual(valuesOf(await screenSays(agent.name)));
    }
  });

  it("refuses at start an agent whose code declares a policy out of bounds", () => {
    const broken = defineAgent({
      name: "broken",
      input: z.object({}),
      tools: {},
      policy: { maxAttempts: 0 },
      run: async () => null,
    });
    expect(() => catalogEntry(broken)).toThrow(/agent broken declares an invalid retry policy/);
  });
});
