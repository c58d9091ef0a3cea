// Deletes an alert rule at the version the admin loaded. Deliveries already enqueued find the
// rule gone and send nothing; the `system` stream keeps what the rule was and who removed it.
import type pg from "pg";
import { withTransaction } from "../../../db/client";
import type { Principal } from "../../domain/access";
import { type CommandResult, refuseWithout } from "../../domain/command-result";
import { isRuleId, ledgerView, lockRuleFor } from "../alerts/rules";
import { appendLedger, SYSTEM_STREAM } from "../ledger/append-ledger";

export async function deleteAlertRule(
  pool: pg.Pool,
  principal: Principal,
  input: { id: string; version: number },
): Promise<CommandResult<{ id: string }>> {
  const refused = refuseWithout(principal, "alerts:write", "delete alert rules");
  if (refused) return refused;
  if (!isRuleId(input.id)) return { ok: false, code: "not_found", message: "no such alert rule" };
  return withTransaction(pool, async (client) => {
    const locked = await lockRuleFor(client, input.id, input.version);
    if ("error" in locked) return locked.error;
    const current = locked.rule;
    const deleted = await client.query("delete from alert_rules where id = $1 and version = $2", [
      input.id,
      input.version,
    ]);
    if (deleted.rowCount !== 1) {
      return {
        ok: false as const,
        code: "conflict" as const,
        message: "the rule changed meanwhile",
      };
    }
    await appendLedger(client, SYSTEM_STREAM, {
      kind: "alert_rule.deleted",
      actor: principal.actor,
      data: {
        before: ledgerView(input.id, current),
        after: null,
      },
    });
    return { ok: true as const, value: { id: input.id } };
  });
}
