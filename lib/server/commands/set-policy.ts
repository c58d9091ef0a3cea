// set a retry policy (global or per agent). Applies to later failures of existing tasks; the
// system stream records before, after and who, and for each changed field the value that was in
// force at the scope and where it came from (the agent's code, the global row, built-in), so
// lowering a limit the code set reads "6 (agent code) → 5" rather than "inherited → 5".
import type pg from "pg";
import { type SqlClient, withTransaction } from "../../../db/client";
import type { Principal } from "../../domain/access";
import { type CommandResult, conflict, refuseWithout } from "../../domain/command-result";
import {
  BUILT_IN_POLICY,
  type PartialRetryPolicy,
  POLICY_SCOPE,
  type PolicyColumns,
  partialRetryPolicySchema,
  policyFromColumns,
  policyInForceChanges,
} from "../../domain/retry-policy";
import { appendLedger, SYSTEM_STREAM } from "../ledger/append-ledger";

export type SetPolicyInput = {
  scope: string;
  policy: PartialRetryPolicy;
  /** The version the admin saw; null when they saw no policy for this scope. */
  version: number | null;
};

type Row = PolicyColumns & { version: number };

export async function setPolicy(
  pool: pg.Pool,
  principal: Principal,
  input: SetPolicyInput,
): Promise<CommandResult<{ scope: string; version: number }>> {
  // Before the input is judged: who may not change policies learns nothing about their form.
  const refused = refuseWithout(principal, "policies:write", "change retry policies");
  if (refused) return refused;
  if (!POLICY_SCOPE.test(input.scope)) {
    return {
      ok: false,
      code: "invalid",
      message: `scope must be "global" or "agent:<name>", got "${input.scope}"`,
    };
  }
  const parsed = partialRetryPolicySchema.safeParse(input.policy);
  if (!parsed.success) return { ok: false, code: "invalid", message: parsed.error.message };
  if (input.scope === "global" && (parsed.data.concurrencyLimit ?? null) !== null) {
    return {
      ok: false,
      code: "invalid",
      message: "concurrencyLimit is set per agent (its code or its agent row), not globally",
    };
  }
  return withTransaction(pool, async (client) => {
    const { rows } = await client.query<Row>(
      "select * from retry_policies where scope = $1 for update",
      [input.scope],
    );
    const current = rows[0];
    if ((current?.version ?? null) !== input.version) {
      return {
        ok: false as const,
        code: "conflict" as const,
        message: current
          ? `the ${input.scope} policy changed since you loaded it (now version ${current.version})`
          : `there is no ${input.scope} policy any more`,
      };
    }
    const before = current ? policyFromColumns(current) : null;
    // The global policy is the floor of the chain: every field is set.
    const after =
      input.scope === "global"
        ? { ...BUILT_IN_POLICY, ...before, ...parsed.data }
        : { ...parsed.data };
    const saved = await client.query<{ version: number }>(
      `insert into retry_policies (scope, max_attempts, backoff_initial_ms, backoff_factor, backoff_max_ms, attempt_timeout_ms, budget, updated_by, concurrency_limit)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $10)
       on conflict (scope) do update set max_attempts = excluded.max_attempts, backoff_initial_ms = excluded.backoff_initial_ms,
         backoff_factor = excluded.backoff_factor, backoff_max_ms = excluded.backoff_max_ms,
         attempt_timeout_ms = excluded.attempt_timeout_ms, budget = excluded.budget,
         concurrency_limit = excluded.concurrency_limit,
         updated_by = excluded.updated_by, updated_at = now(), version = retry_policies.version + 1
       where retry_policies.version = $9
       returning version`,
      [
        input.scope,
        after.maxAttempts ?? null,
        after.backoffInitialMs ?? null,
        after.backoffFactor ?? null,
        after.backoffMaxMs ?? null,
        after.attemptTimeoutMs ?? null,
        after.budget ?? null,
        principal.actor,
        input.version,
        after.concurrencyLimit ?? null,
      ],
    );
    // No row yet cannot be locked: a concurrent first save of this scope makes the insert
    // conflict, and the guard (the version the admin saw, null for none) refuses to overwrite it.
    const version = saved.rows[0]?.version;
    if (saved.rowCount !== 1 || version === undefined) {
      return conflict(`the ${input.scope} policy changed since you loaded it`);
    }
    const inForce = policyInForceChanges(
      input.scope,
      before,
      after,
      input.scope === "global" ? {} : await levelsBelowAgent(client, input.scope),
    );
    await appendLedger(client, SYSTEM_STREAM, {
      kind: "policy.changed",
      actor: principal.actor,
      data: { scope: input.scope, before, after, inForce },
    });
    return {
      ok: true as const,
      value: { scope: input.scope, version },
    };
  });
}

/**
 * What an `agent:<name>` row falls through to, read as the worker resolves it: the defaults the
 * agent's code declares (as its workers published them) and the global row. A published
 * policy the schema refuses is not applied by the worker either, so it counts as none.
 */
async function levelsBelowAgent(
  client: SqlClient,
  scope: string,
): Promise<{ code: PartialRetryPolicy | null; global: PartialRetryPolicy | null }> {
  const agent = scope.slice("agent:".length);
  const code = await client.query<{ policy: unknown }>(
    "select policy from agent_catalog where name = $1",
    [agent],
  );
  const parsed = partialRetryPolicySchema.safeParse(code.rows[0]?.policy ?? null);
  const global = await client.query<PolicyColumns>(
    "select * from retry_policies where scope = 'global'",
  );
  const globalRow = global.rows[0];
  return {
    code: parsed.success ? parsed.data : null,
    global: globalRow ? policyFromColumns(globalRow) : null,
  };
}
