// The SQL of per-agent concurrency limits (issue 21), in view: fill the concurrency keys of a
// keyed agent's queued tasks, take the agent's claim lock, and claim at most the limit's free
// places per key. The unlimited claim stays task-sql.ts claimTasks, one statement.
import type { SqlClient } from "../../db/client";
import type { JsonValue } from "../../lib/domain/json";
import { CLAIMABLE, type ClaimedRow, claimedRowsSql } from "./task-sql";

/** Runnable tasks one limited claim looks through (after leaving out saturated keys). */
export const CLAIM_LOOKAHEAD = 1_000;

/** A keyed agent's queued tasks whose key is still to be computed, oldest in claim order first. */
export async function unkeyedTasks(
  client: SqlClient,
  agent: string,
  limit: number,
): Promise<{ id: string; input: JsonValue }[]> {
  const { rows } = await client.query<{ id: string; input: JsonValue }>({
    name: "runtime_unkeyed_tasks",
    text: `select id, input from tasks
           where agent = $1 and concurrency_key is null and status in ('queued', 'retry_wait')
           order by priority desc, run_at, id
           limit $2`,
    values: [agent, limit],
  });
  return rows;
}

/** Sets the keys computed for these tasks; a key set meanwhile (a library enqueue) is kept. */
export async function setConcurrencyKeys(
  client: SqlClient,
  keys: readonly { id: string; key: string }[],
): Promise<number> {
  if (keys.length === 0) return 0;
  const { rowCount } = await client.query({
    name: "runtime_set_concurrency_keys",
    text: `update tasks t set concurrency_key = k.key
           from unnest($1::uuid[], $2::text[]) as k(id, key)
           where t.id = k.id and t.concurrency_key is null`,
    values: [keys.map((k) => k.id), keys.map((k) => k.key)],
  });
  return rowCount ?? 0;
}

/**
 * Serializes the claims of one limited agent across every worker until the transaction ends. A
 * claim statement sees only what committed before it began: without this, two workers claiming
 * at once would each count the same running tasks and together pass the limit. The lock is
 * granted only after the previous holder's commit is visible, so the count that follows is exact.
 */
export async function lockAgentClaims(client: SqlClient, agent: string): Promise<void> {
  await client.query({
    name: "runtime_lock_agent_claims",
    text: "select pg_advisory_xact_lock(hashtext('concurrency:' || $1))",
    values: [agent],
  });
}

/**
 * Claims up to `max` runnable tasks of one limited agent, at most (limit − running) per key
 * (one key, "*", for all when not keyed: keys compare with plain equality, so the planner
 * hashes the joins; 8 ms with 100,000 queued over 100 keys, most of them at their limit), in
 * the claim order (priority desc, run_at, id), and reads what their attempts need as
 * claimTasks does. The limit in force is the admin's `agent:<name>` row over the code's; null
 * for both claims as if unlimited. A task whose lease expired but is still running counts
 * until the reaper moves it. Run after lockAgentClaims, in the same transaction. Rows another
 * writer holds (a cancel) are waited for, then re-checked.
 */
export async function claimLimitedTasks(
  client: SqlClient,
  worker: string,
  limited: { agent: string; codeLimit: number | null; keyed: boolean },
  max: number,
  leaseMs: number,
): Promise<ClaimedRow[]> {
  const { rows } = await client.query<ClaimedRow>({
    name: "runtime_claim_limited_tasks",
    text: `with lim as (
             select coalesce((select concurrency_limit from retry_policies where scope = 'agent:' || $1),
                             $2::int) as n
           ), running as (
             select case when $3 then concurrency_key else '*' end as k, count(*) as n
             from tasks where agent = $1 and status = 'running'
             group by 1
           ), open as (
             select t.id, t.priority, t.run_at, case when $3 then t.concurrency_key else '*' end as k
             from tasks t
             where t.agent = $1 and t.status in ${CLAIMABLE} and t.run_at <= now()
               and (not $3 or t.concurrency_key is not null)
               and (case when $3 then t.concurrency_key else '*' end) not in
                   (select r.k from running r, lim where r.k is not null and r.n >= lim.n)
             order by t.priority desc, t.run_at, t.id
             limit $7
           ), candidates as (
             select o.id from (
               select o.*, row_number() over (partition by o.k order by o.priority desc, o.run_at, o.id) as rn
               from open o
             ) o
             cross join lim
             left join running r on r.k = o.k
             where lim.n is null or o.rn <= lim.n - coalesce(r.n, 0)
             order by o.priority desc, o.run_at, o.id
             limit $4
           ), ${claimedRowsSql("$5", "$6")}`,
    values: [
      limited.agent,
      limited.codeLimit,
      limited.keyed,
      max,
      worker,
      leaseMs,
      CLAIM_LOOKAHEAD,
    ],
  });
  return rows;
}

/** The agents among these whose admin row sets a concurrency limit. */
export async function agentsWithLimitRows(
  client: SqlClient,
  agents: readonly string[],
): Promise<string[]> {
  const { rows } = await client.query<{ scope: string }>({
    name: "runtime_agents_with_limit_rows",
    text: `select scope from retry_policies
           where scope = any($1::text[]) and concurrency_limit is not null`,
    values: [agents.map((a) => `agent:${a}`)],
  });
  return rows.map((r) => r.scope.slice("agent:".length));
}
