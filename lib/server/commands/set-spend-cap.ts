// Set, change or clear an agent's daily spend budget (admins), on the version the admin loaded.
// Workers read the cap before every model call (worker/runtime/spend-cap.ts), so it applies to
// the next call. The system stream records before → after and who, as `policy.changed` with
// scope `budget:<agent>`. Tasks waiting on the agent's budget run again at once: each re-checks
// the cap before its next model call, so one that is still over it simply waits again, while a
// raised or cleared cap lets it go on without waiting for midnight.
import type pg from "pg";
import { withTransaction } from "../../../db/client";
import type { Principal } from "../../domain/access";
import { type CommandResult, invalid, notFound, refuseWithout } from "../../domain/command-result";
import {
  BUDGET_SCOPE_PREFIX,
  type SpendCap,
  type SpendCapChange,
  type SpendCapInput,
  spendCapInputSchema,
} from "../../domain/spend-cap-form";
import { describeIssues } from "../../domain/zod-issues";
import { appendLedger, SYSTEM_STREAM } from "../ledger/append-ledger";
import { TASKS_CHANNEL } from "./insert-tasks";
import { saveVersionedSetting } from "./versioned-setting";

type Row = {
  daily_limit: number | null;
  key_path: string | null;
  key_daily_limit: number | null;
  on_exceed: "wait" | "dead";
  version: number;
};

const capOf = (r: Row): SpendCap => ({
  dailyLimit: r.daily_limit,
  keyPath: r.key_path,
  keyDailyLimit: r.key_daily_limit,
  onExceed: r.on_exceed,
});

export async function setSpendCap(
  pool: pg.Pool,
  principal: Principal,
  input: SpendCapInput,
): Promise<CommandResult<{ agent: string; version: number | null; woken: number }>> {
  const refused = refuseWithout(principal, "policies:write", "change daily spend budgets");
  if (refused) return refused;
  const parsed = spendCapInputSchema.safeParse(input);
  if (!parsed.success) return invalid(describeIssues(parsed.error));
  const { agent, version, cap } = parsed.data;
  return withTransaction(pool, async (client) => {
    const known = await client.query(
      `select 1 from agent_catalog where name = $1
       union all select 1 from (select 1 from tasks where agent = $1 limit 1) t`,
      [agent],
    );
    if (known.rowCount === 0) {
      return notFound(`no agent named "${agent}" is published or has tasks`);
    }
    const result = await saveVersionedSetting<Row>(
      client,
      {
        table: "spend_caps",
        keyColumn: "agent",
        columns: ["daily_limit", "key_path", "key_daily_limit", "on_exceed"],
        what: `the daily budget of ${agent}`,
        nothingToClear: `${agent} has no daily budget to clear`,
      },
      {
        key: agent,
        version,
        values: cap && [cap.dailyLimit, cap.keyPath, cap.keyDailyLimit, cap.onExceed],
        actor: principal.actor,
      },
    );
    if (!result.ok) return result;
    const { current, saved } = result.value;
    const woken = await wakeBudgetWaits(client, agent);
    const data: SpendCapChange = {
      scope: `${BUDGET_SCOPE_PREFIX}${agent}`,
      before: current ? capOf(current) : null,
      after: cap,
      woken,
    };
    await appendLedger(client, SYSTEM_STREAM, {
      kind: "policy.changed",
      actor: principal.actor,
      data,
    });
    return { ok: true as const, value: { agent, version: saved, woken } };
  });
}

/**
 * The agent's queued tasks whose stream ends on a budget wait (task.requeued with `budget`, and
 * nothing since) become runnable now, and idle workers are woken for them.
 */
async function wakeBudgetWaits(client: pg.PoolClient, agent: string): Promise<number> {
  const { rows } = await client.query<{ id: string }>(
    `update tasks t set run_at = now(), version = t.version + 1, updated_at = now()
     from ledger_streams s, ledger_entries e
     where t.agent = $1 and t.status = 'queued' and t.run_at > now()
       and s.stream = 'task:' || t.id and e.stream = s.stream and e.seq = s.head_seq
       and e.kind = 'task.requeued' and e.data ? 'budget'
     returning t.id`,
    [agent],
  );
  if (rows.length > 0) {
    await client.query("select pg_notify($1, id) from unnest($2::text[]) as id", [
      TASKS_CHANNEL,
      rows.map((r) => r.id),
    ]);
  }
  return rows.length;
}
