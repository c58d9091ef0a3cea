// The dashboard reads and writes rows whose meaning the schema fixes: on a database this code
// does not know (not migrated yet, or migrated by a newer release) the web server refuses to
// start, with the same verdict a worker gives (db/schema-version.ts).
import { connectClient } from "../db/client";
import { retryOnConnectionError } from "../db/retry";
import { assertSchemaCurrent } from "../db/schema-version";
import { errorFields, type Logger } from "../lib/log";

/** Throws SchemaVersionError when the schema is not current; waits up to a minute for the database. */
export async function checkDashboardSchema(databaseUrl: string, log: Logger): Promise<void> {
  const check = await retryOnConnectionError(
    async () => {
      const client = await connectClient(databaseUrl);
      try {
        return await assertSchemaCurrent(client, { who: "dashboard" });
      } finally {
        await client.end().catch(() => {});
      }
    },
    {
      giveUpAfterMs: 60_000,
      onRetry: (err, attempt, delayMs) =>
        attempt === 0 &&
        log.warn(
          { ...errorFields(err), retryInMs: delayMs },
          "database unreachable at start; waiting to check its schema",
        ),
    },
  );
  if (check.changed.length > 0) log.warn({ changed: check.changed }, check.message);
  else log.debug(check.message);
}
