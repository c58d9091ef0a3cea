// The suite's app reads its screens through DATABASE_READ_URL, a read-only role on the e2e
// database (e2e/server.ts). This shows it really does, so the other specs' screens run on that
// route and not on the primary by accident.
import { createPool } from "../db/client";
import { expect, test } from "./fixtures";
import { readE2eDatabase } from "./settings";

test("a screen's reads run on the app's read-only connection", async ({ page }) => {
  const { readerUrl } = readE2eDatabase();
  test.skip(readerUrl === null, "E2E_READ_REPLICA=0: the app runs on one pool");
  if (readerUrl === null) return;
  // As the reader itself: only a superuser or the same role sees another backend's query text.
  const reader = createPool(readerUrl, { max: 1, applicationName: "agent-ledger-e2e-reader" });
  try {
    const role = decodeURIComponent(new URL(readerUrl).username);
    const { rows: session } = await reader.query<{ ro: string }>(
      "select current_setting('transaction_read_only') as ro",
    );
    expect(session[0]?.ro).toBe("on");
    // Every backend's last statement: the ledger screen's listing, not only health's probe.
    // pg closes idle pool connections after 10 s, so a slow box reloads and looks again.
    await expect(async () => {
      await page.goto("/ledger");
      await expect(page.getByRole("heading", { name: "Ledger", level: 1 })).toBeVisible();
      const { rows } = await reader.query<{ query: string }>(
        `select query from pg_stat_activity
          where usename = $1 and datname = current_database() and application_name = 'agent-ledger-web-read'`,
        [role],
      );
      expect(rows.some((r) => r.query.includes("ledger_entries"))).toBe(true);
    }).toPass();
  } finally {
    await reader.end();
  }
});
