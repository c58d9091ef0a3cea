// Deletes an alert rule at the version the admin loaded. Deliveries already enqueued find the
// rule gone and send nothing; the `system` stream keeps what the rule was and who removed it.
import type pg from "pg";
import { withTransaction } from "../../../db/client";
import type { AlertRuleRow } from "../../../db/schema";
import { isRuleId, ledgerView } from "../alerts/rules";
import { appendLedger, SYSTEM_STREAM } from "../ledger/append-ledger";
import type { CommandResult } from "./task-guard";

type DeletedRow = Pick<
  AlertRuleRow,
  "name" | "kind" | "agent" | "reason" | "destination" | "url" | "secret" | "enabled"
> & { older_than_minutes: number | null };

export async function deleteAlertRule(
  pool: pg.Pool,
  input: { id: string; version: number; actor: string },
): Promise<CommandResult<{ id: string }>> {
  if (!isRuleId(input.id)) return { ok: false, code: "not_found", message: "no such alert rule" };
  return withTransaction(pool, async (client) => {
    const { rows } = await client.query<DeletedRow & { version: number }>(
      `select name, kind, agent, reason, older_than_minutes, destination, url, secret, enabled, version
       from alert_rules where id = $1 for update`,
      [input.id],
    );
    const current = rows[0];
    if (!current) {
      return { ok: false as const, code: "not_found" as const, message: "no such alert rule" };
    }
    if (current.version !== input.version) {
      return {
        ok: false as const,
        code: "conflict" as const,
        message: `the rule changed since you loaded it (now version ${current.version})`,
        stale: true as const,
      };
    }
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
      actor: input.actor,
      data: {
        before: ledgerView(input.id, { ...current, olderThanMinutes: current.older_than_minutes }),
        after: null,
      },
    });
    return { ok: true as const, value: { id: input.id } };
  });
}
