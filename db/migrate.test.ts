import { readFileSync } from "node:fs";
import { afterAll, describe, expect, inject, it } from "vitest";
import { connectClient } from "./client";
import { migrateDatabase } from "./migrate";
import { createDatabase, dropDatabase, OWNER_ROLE, withCredentials } from "./provision";

const cluster = inject("testCluster");
const name = `t_migrate_${process.pid}`;
afterAll(() => dropDatabase(cluster.superUrl, name));

describe("the migrations' journal", () => {
  it("dates every migration after the one before it: the migrator skips one dated at or before the last applied", () => {
    const journal = JSON.parse(
      readFileSync(new URL("./migrations/meta/_journal.json", import.meta.url), "utf8"),
    ) as { entries: { idx: number; when: number; tag: string }[] };
    const late = journal.entries.filter((e, i) => {
      const before = journal.entries[i - 1];
      return before !== undefined && e.when <= before.when;
    });
    expect(late.map((e) => e.tag)).toEqual([]);
    expect(journal.entries.map((e) => e.idx)).toEqual(journal.entries.map((_, i) => i));
  });
});

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
