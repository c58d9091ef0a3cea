// set a retry policy (global or per agent). Applies to later failures of existing tasks; the
// system stream records before, after and who.
import type pg from "pg";
import { withTransaction } from "../../../db/client";
import type { Principal } from "../../domain/access";
import { type CommandResult, conflict, refuseWithout } from "../../domain/command-result";
import {
  BUILT_IN_POLICY,
  type PartialRetryPolicy,
  POLICY_SCOPE,
  type PolicyColumns,
  partialRetryPolicySchema,
  policyFromColumns,
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
      `insert into retry_policies (scope, max_attempts, backoff_initial_ms, backoff_factor, backoff_max_ms, attempt_timeout_ms, budget, updated_by)
       values ($1, $2, $3, $4, $5, $6, $7, $8)
       on conflict (scope) do update set max_attempts = excluded.max_attempts, backoff_initial_ms = excluded.backoff_initial_ms,
         backoff_factor = excluded.backoff_factor, backoff_max_ms = excluded.backoff_max_ms,
         attempt_timeout_ms = excluded.attempt_timeout_ms, budget = excluded.budget,
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
      ],
    );
    // No row yet cannot be locked: a concurrent first save of this scope makes the insert
    // conflict, and the guard (the version the admin saw, null for none) refuses to overwrite it.
    const version = saved.rows[0]?.version;
    if (saved.rowCount !== 1 || version === undefined) {
      return conflict(`the ${input.scope} policy changed since you loaded it`);
    }
    await appendLedger(client, SYSTEM_STREAM, {
      kind: "policy.changed",
      actor: principal.actor,
      data: { scope: input.scope, before, after },
    });
    return {
      ok: true as const,
      value: { scope: input.scope, version },
    };
  });
}
