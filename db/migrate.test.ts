import { afterAll, describe, expect, inject, it } from "vitest";
import { connectClient } from "./client";
import { migrateDatabase } from "./migrate";
import { createDatabase, dropDatabase, OWNER_ROLE, withCredentials } from "./provision";

const cluster = inject("testCluster");
const name = `t_migrate_${process.pid}`;
afterAll(() => dropDatabase(cluster.superUrl, name));

describe("migrateDatabase", () => {
  it("serializes concurrent migrations of an empty database: each migration applies once", async () => {
    await createDatabase(cluster.superUrl, name);
    const ownerUrl = withCredentials(
      cluster.superUrl,
      OWNER_ROLE,
      cluster.credentials.ownerPassword,
      name,
    );
    const results = await Promise.all([1, 2, 3].map(() => migrateDatabase(ownerUrl)));
    const total = results[0]?.total ?? 0;
    expect(total).toBeGreaterThanOrEqual(2);
    expect(results.every((r) => r.total === total)).toBe(true);
    expect(results.reduce((n, r) => n + r.applied, 0)).toBe(total);

    const client = await connectClient(ownerUrl);
    try {
      // Each once: the two append-only guards and the kind counter (migration 0022).
      const { rows } = await client.query(
        "select tgname from pg_trigger where tgrelid = 'ledger_entries'::regclass and not tgisinternal order by tgname",
      );
      expect(rows.map((r) => r.tgname)).toEqual([
        "ledger_entries_count_kinds",
        "ledger_entries_no_truncate",
        "ledger_entries_no_update_delete",
      ]);
    } finally {
      await client.end();
    }
  });
});
