// Per-agent concurrency limits on the worker's side (issue 21): which of its agents claim through
// the limited claim (concurrency-sql.ts) and which through the one-statement claim, and the keys
// of keyed agents' tasks that were enqueued by name (HTTP API, CLI, dashboard), computed here
// because the key function is agent code that only a worker running the agent has.
import type pg from "pg";
import { concurrencyKeyOf, FAILED_CONCURRENCY_KEY, isKeyed } from "../../lib/sdk/concurrency-key";
import type { Agent } from "../../lib/sdk/define";
import { agentsWithLimitRows, setConcurrencyKeys, unkeyedTasks } from "./concurrency-sql";

export type LimitedAgent = { agent: string; codeLimit: number | null; keyed: boolean };

export type ClaimPlan = { unlimited: string[]; limited: LimitedAgent[] };

/** Keys computed per agent per claim round: a backlog enqueued by name is keyed over rounds. */
const FILL_BATCH = 500;

/**
 * How this worker's agents claim. An agent whose code sets a limit always claims through the
 * limited claim, which reads the admin's override itself. One whose code sets none is limited
 * only while its admin row sets one: that is read at most every `refreshMs` (a claim round
 * would otherwise pay a query for it), so an override set for such an agent applies within that.
 */
export function claimPlanner(
  pool: pg.Pool,
  agents: readonly Agent[],
  refreshMs: number,
): () => Promise<ClaimPlan> {
  const coded = agents.filter((a) => a.concurrency !== undefined);
  const uncoded = agents.filter((a) => a.concurrency === undefined).map((a) => a.name);
  let overridden: { names: Set<string>; at: number } | undefined;
  return async () => {
    if (uncoded.length > 0 && (!overridden || Date.now() - overridden.at >= refreshMs)) {
      overridden = { names: new Set(await agentsWithLimitRows(pool, uncoded)), at: Date.now() };
    }
    const names = overridden?.names ?? new Set<string>();
    return {
      unlimited: uncoded.filter((n) => !names.has(n)),
      limited: [
        ...coded.map((a) => ({
          agent: a.name,
          codeLimit: a.concurrency?.limit ?? null,
          keyed: isKeyed(a),
        })),
        ...uncoded
          .filter((n) => names.has(n))
          .map((agent) => ({ agent, codeLimit: null, keyed: false })),
      ],
    };
  };
}

/**
 * Computes the keys of a keyed agent's queued tasks that have none yet, before they can be
 * claimed. A task whose key function fails gets FAILED_CONCURRENCY_KEY: it is claimed like any
 * other and its attempt dead-letters it, non-retryable, saying why (run-attempt.ts).
 */
export async function fillConcurrencyKeys(pool: pg.Pool, agent: Agent): Promise<number> {
  if (!isKeyed(agent)) return 0;
  const tasks = await unkeyedTasks(pool, agent.name, FILL_BATCH);
  return setConcurrencyKeys(
    pool,
    tasks.map((t) => {
      const outcome = concurrencyKeyOf(agent, t.input);
      return { id: t.id, key: outcome.ok ? outcome.key : FAILED_CONCURRENCY_KEY };
    }),
  );
}
