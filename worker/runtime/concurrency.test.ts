// Per-agent concurrency limits against real PostgreSQL (issue 21): a keyed limit holds per key
// with more worker slots than the limit, tasks enqueued by name are keyed by the worker, an
// admin's override changes the limit the claim enforces (and the ledger says from what), and a
// key function that fails dead-letters its task, non-retryable, saying why.
import { renderToStaticMarkup } from "react-dom/server";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { AgentsTable } from "../../components/agents/agent-catalog";
import { TaskFacts } from "../../components/tasks/task-facts";
import { setUpTestDatabase } from "../../db/testing/database";
import { testViewer } from "../../lib/auth/testing";
import { operator } from "../../lib/domain/access";
import type { JsonValue } from "../../lib/domain/json";
import { describePolicyChange } from "../../lib/domain/policy-text";
import { policyFieldChanges } from "../../lib/domain/retry-policy";
import { defineAgent } from "../../lib/sdk/define";
import { enqueue, InvalidTaskInputError } from "../../lib/sdk/enqueue";
import { enqueueMany } from "../../lib/sdk/enqueue-many";
import { correctInput } from "../../lib/server/commands/correct-input";
import { setPolicy } from "../../lib/server/commands/set-policy";
import { getAgentsScreen } from "../../lib/server/queries/get-agents-screen";
import { getTaskDetail } from "../../lib/server/queries/get-task-detail";
import { runtimeTestKit } from "./test-support";
import { startWorker } from "./worker";
import type { RunningWorker } from "./worker-config";

const t = await setUpTestDatabase("concurrency");
const kit = runtimeTestKit(t.pool);

/** Most tasks seen running at once per key, by this process's own count inside run(). */
const inFlight = new Map<string, number>();
const most = new Map<string, number>();

const input = z.object({ merchant: z.string(), n: z.number() });

function limitedAgent(name: string, limit: number, holdMs: number) {
  return defineAgent({
    name,
    input,
    tools: {},
    concurrency: { limit, key: (i) => i.merchant },
    run: async (_ctx, i) => {
      // Per merchant, and over all of the agent's tasks ("*").
      const keys = [`${name}/${i.merchant}`, `${name}/*`];
      for (const key of keys) {
        const now = (inFlight.get(key) ?? 0) + 1;
        inFlight.set(key, now);
        most.set(key, Math.max(most.get(key) ?? 0, now));
      }
      await new Promise((r) => setTimeout(r, holdMs));
      for (const key of keys) inFlight.set(key, (inFlight.get(key) ?? 1) - 1);
      return null;
    },
  });
}

/** Samples the database's own count of running tasks per key until `stop` is set. */
function sampleRunning(agent: string): { stop: () => Promise<Map<string, number>> } {
  const peak = new Map<string, number>();
  let running = true;
  const loop = (async () => {
    while (running) {
      const { rows } = await t.pool.query<{ k: string; n: number }>(
        `select concurrency_key as k, count(*)::int as n from tasks
         where agent = $1 and status = 'running' group by 1`,
        [agent],
      );
      for (const r of rows) peak.set(r.k, Math.max(peak.get(r.k) ?? 0, r.n));
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return peak;
    },
  };
}

const workers: RunningWorker[] = [];
afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop(1_000)));
});

async function worker(agents: Parameters<typeof startWorker>[0]["agents"]) {
  const w = await startWorker({
    pool: t.pool,
    agents,
    concurrency: 10,
    leaseMs: 2_000,
    pollMs: 20,
    log: () => {},
  });
  workers.push(w);
  return w;
}

describe("a keyed concurrency limit", () => {
  it("never runs more than the limit per key, with more worker slots than that", async () => {
    const agent = limitedAgent("conc-keyed", 2, 60);
    // Enqueued by name, as the API and the CLI do: the worker computes each key before claiming.
    const ids = [];
    for (let n = 0; n < 10; n++) {
      ids.push(await kit.enqueue(agent.name, { merchant: n % 2 === 0 ? "acme" : "globex", n }));
    }
    const sampler = sampleRunning(agent.name);
    await worker([agent]);
    for (const id of ids) expect((await kit.settle(id)).status).toBe("succeeded");
    const peak = await sampler.stop();

    expect(most.get("conc-keyed/acme")).toBe(2);
    expect(most.get("conc-keyed/globex")).toBe(2);
    expect(Math.max(...peak.values())).toBeLessThanOrEqual(2);
    const { rows } = await t.pool.query<{ k: string; n: number }>(
      "select concurrency_key as k, count(*)::int as n from tasks where agent = $1 group by 1 order by 1",
      [agent.name],
    );
    expect(rows).toEqual([
      { k: "acme", n: 5 },
      { k: "globex", n: 5 },
    ]);

    // The task page says which key the task counts under; the agents screen, the limit.
    const detail = await getTaskDetail(t.db, testViewer("ops"), ids[1] ?? "");
    expect(detail?.task.concurrencyKey).toBe("globex");
    const facts = detail ? renderToStaticMarkup(TaskFacts({ task: detail.task })) : "";
    expect(facts).toContain("Concurrency key");
    expect(facts).toContain("globex");
    const screen = await getAgentsScreen(t.pool, testViewer("ops"), { leaseMs: 2_000 });
    const shown = screen.agents.find((a) => a.name === agent.name);
    expect(shown?.concurrency).toEqual({ limit: 2, source: "code", keyed: true });
    const table = renderToStaticMarkup(AgentsTable({ agents: shown ? [shown] : [] }));
    expect(table.replaceAll("<!-- -->", "")).toContain("2</span> per key");
  });
});

describe("an overall limit", () => {
  it("counts all the agent's tasks as one, from its code or from an admin row alone", async () => {
    const overall = defineAgent({
      name: "conc-overall",
      input,
      tools: {},
      concurrency: { limit: 2 },
      // Held long enough that a second task is claimed while the first runs, however busy the
      // box (at 40 ms a loaded CI machine once ran them one after the other).
      run: limitedAgent("conc-overall", 2, 400).run,
    });
    // No limit in its code: the admin's row limits it, read by the worker's claim planner.
    const uncoded = defineAgent({
      name: "conc-uncoded",
      input,
      tools: {},
      run: limitedAgent("conc-uncoded", 1, 40).run,
    });
    const saved = await setPolicy(t.pool, operator("user:admin@example.com"), {
      scope: `agent:${uncoded.name}`,
      version: null,
      policy: { concurrencyLimit: 1 },
    });
    expect(saved.ok).toBe(true);
    await worker([overall, uncoded]);
    const ids = [];
    for (let n = 0; n < 6; n++) {
      // Two merchants each: an overall limit ignores them.
      const merchant = n % 2 === 0 ? "acme" : "globex";
      ids.push(await kit.enqueue(overall.name, { merchant, n }));
      ids.push(await kit.enqueue(uncoded.name, { merchant, n }));
    }
    for (const id of ids) expect((await kit.settle(id)).status).toBe("succeeded");
    expect(most.get("conc-overall/*")).toBe(2);
    expect(most.get("conc-uncoded/*")).toBe(1);
    // Not keyed: no task got a key.
    const { rows } = await t.pool.query<{ agent: string; n: number }>(
      `select agent, count(*)::int as n from tasks where agent = any($1) and concurrency_key is null
       group by agent order by agent`,
      [[overall.name, uncoded.name]],
    );
    expect(rows).toEqual([
      { agent: "conc-overall", n: 6 },
      { agent: "conc-uncoded", n: 6 },
    ]);
    const screen = await getAgentsScreen(t.pool, testViewer("ops"), { leaseMs: 2_000 });
    expect(screen.agents.find((a) => a.name === uncoded.name)?.concurrency).toEqual({
      limit: 1,
      source: "agent",
      keyed: false,
    });
  });
});

describe("an admin override of the limit", () => {
  it("is what the claim enforces, recorded as policy.changed from the code's value", async () => {
    const agent = limitedAgent("conc-override", 3, 40);
    const w = await worker([agent]);
    // The worker published the code's limit: the override's before is "3 (agent code)".
    const saved = await setPolicy(t.pool, operator("user:admin@example.com"), {
      scope: `agent:${agent.name}`,
      version: null,
      policy: { concurrencyLimit: 1 },
    });
    expect(saved.ok).toBe(true);
    const { rows: changes } = await t.pool.query<{ data: { [k: string]: JsonValue } }>(
      "select data from ledger_entries where kind = 'policy.changed' order by id desc limit 1",
    );
    const data = changes[0]?.data ?? {};
    const fields = policyFieldChanges(data.before, data.after, data.inForce) ?? [];
    expect(fields.map((f) => describePolicyChange(`agent:${agent.name}`, f))).toEqual([
      "Running at once 3 (agent code) → 1",
    ]);

    const ids = [];
    for (let n = 0; n < 6; n++) ids.push(await kit.enqueue(agent.name, { merchant: "acme", n }));
    for (const id of ids) expect((await kit.settle(id)).status).toBe("succeeded");
    expect(most.get("conc-override/acme")).toBe(1);
    // The last task's success is visible in the database a moment before its attempt leaves the
    // worker's slots (the answer to its statement is still on its way back).
    await expect.poll(() => w.active(), { timeout: 2_000 }).toBe(0);
    const screen = await getAgentsScreen(t.pool, testViewer("ops"), { leaseMs: 2_000 });
    expect(screen.agents.find((a) => a.name === agent.name)?.concurrency).toEqual({
      limit: 1,
      source: "agent",
      keyed: true,
    });
  });

  it("is refused for the global row", async () => {
    const refused = await setPolicy(t.pool, operator("user:admin@example.com"), {
      scope: "global",
      version: null,
      policy: { concurrencyLimit: 4 },
    });
    expect(refused).toMatchObject({ ok: false, code: "invalid" });
  });
});

describe("a key function that fails", () => {
  it("dead-letters the task, non-retryable, and the others run", async () => {
    const agent = defineAgent({
      name: "conc-bad-key",
      input,
      tools: {},
      concurrency: {
        limit: 1,
        key: (i) => {
          if (i.n === 1) throw new Error("no merchant on file");
          return i.n === 2 ? "" : i.merchant;
        },
      },
      run: async () => null,
    });
    await worker([agent]);
    const good = await kit.enqueue(agent.name, { merchant: "acme", n: 0 });
    const throws = await kit.enqueue(agent.name, { merchant: "acme", n: 1 });
    const empty = await kit.enqueue(agent.name, { merchant: "acme", n: 2 });
    expect((await kit.settle(good)).status).toBe("succeeded");
    const dead = await kit.settle(throws);
    expect(dead).toMatchObject({ status: "dead", dead_reason: "non_retryable", attempts: 1 });
    expect(dead.last_error?.message).toBe(
      "agent conc-bad-key: concurrency.key threw for this input: no merchant on file",
    );
    expect((await kit.settle(empty)).last_error?.message).toBe(
      "agent conc-bad-key: concurrency.key must return 1 to 200 characters, got 0",
    );

    // A reviewer fixes the input: the key is computed again, from the new input, and it runs.
    const { rows } = await t.pool.query<{ version: number }>(
      "select version from tasks where id = $1",
      [throws],
    );
    const fixed = await correctInput(t.pool, operator("user:alice@example.com"), {
      taskId: throws,
      version: rows[0]?.version ?? 0,
      input: { merchant: "globex", n: 3 },
    });
    expect(fixed.ok).toBe(true);
    expect((await kit.waitFor(throws, (r) => r.status === "succeeded")).status).toBe("succeeded");
    const { rows: keyed } = await t.pool.query<{ concurrency_key: string | null }>(
      "select concurrency_key from tasks where id = $1",
      [throws],
    );
    expect(keyed[0]?.concurrency_key).toBe("globex");
  });
});

describe("a library enqueue given the Agent", () => {
  it("stores the key at once, and refuses an input whose key function fails", async () => {
    // No worker runs this agent: the key can only come from the enqueue itself.
    const agent = defineAgent({
      name: "conc-library",
      input,
      tools: {},
      concurrency: { limit: 1, key: (i) => (i.n < 0 ? "" : `m-${i.merchant}`) },
      run: async () => null,
    });
    const { taskId } = await enqueue(t.pool, { agent, input: { merchant: "acme", n: 1 } });
    const [many] = await enqueueMany(t.pool, [{ agent, input: { merchant: "globex", n: 2 } }]);
    const { rows } = await t.pool.query<{ id: string; concurrency_key: string | null }>(
      "select id, concurrency_key from tasks where id = any($1::uuid[]) order by concurrency_key",
      [[taskId, many?.taskId]],
    );
    expect(rows.map((r) => r.concurrency_key)).toEqual(["m-acme", "m-globex"]);

    const bad = { agent, input: { merchant: "acme", n: -1 } };
    await expect(enqueue(t.pool, bad)).rejects.toThrow(InvalidTaskInputError);
    await expect(enqueue(t.pool, bad)).rejects.toThrow(
      "agent conc-library: concurrency.key must return 1 to 200 characters, got 0",
    );
    await expect(enqueueMany(t.pool, [bad])).rejects.toThrow(
      /#0: agent conc-library: concurrency.key/,
    );
  });
});

describe("defineAgent", () => {
  it("refuses a limit that is not a whole number from 1 to 10000, naming the agent", () => {
    for (const limit of [0, 1.5, 10_001, Number.NaN]) {
      expect(() =>
        defineAgent({
          name: "conc-misuse",
          input,
          tools: {},
          concurrency: { limit },
          run: async () => null,
        }),
      ).toThrow(/agent conc-misuse: concurrency.limit must be a whole number from 1 to 10000/);
    }
  });
});
