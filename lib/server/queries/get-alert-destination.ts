// Where the alert-delivery tools send: the rule's current URL and secret, read at the moment
// of sending (never carried in a task's input, which the ledger and the dashboard show).
import type pg from "pg";
import type { AlertDestination } from "../../domain/alerts";

export type AlertDestinationRow = {
  enabled: boolean;
  destination: AlertDestination;
  url: string;
  secret: string | null;
};

/** Unchecked: only the worker calls this, with the database credentials it already holds. */
export async function getAlertDestination(
  pool: Pick<pg.Pool, "query">,
  ruleId: string,
): Promise<AlertDestinationRow | null> {
  const { rows } = await pool.query<AlertDestinationRow>({
    name: "alerts_get_destination",
    text: "select enabled, destination, url, secret from alert_rules where id = $1::text::uuid",
    values: [ruleId],
  });
  return rows[0] ?? null;
}
