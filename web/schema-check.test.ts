import { describe, expect, it } from "vitest";
import { SchemaVersionError } from "../db/schema-version";
import { setUpTestDatabase } from "../db/testing/database";
import { logger } from "../lib/log";
import { checkDashboardSchema } from "./schema-check";

const t = await setUpTestDatabase("web_schema_check");
const log = logger("web-test");

describe("the web server's schema check", () => {
  it("lets a dashboard start on the schema it ships", async () => {
    await expect(checkDashboardSchema(t.appUrl, log)).resolves.toBeUndefined();
  });

  it("refuses a database a newer release migrated, saying to upgrade the dashboard", async () => {
    const { rows } = await t.superPool.query<{ id: number }>(
      `insert into drizzle.__drizzle_migrations (hash, created_at)
       select 'newer', max(created_at) + 1 from drizzle.__drizzle_migrations returning id`,
    );
    try {
      const err = await checkDashboardSchema(t.appUrl, log).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SchemaVersionError);
      expect((err as SchemaVersionError).message).toMatch(/: upgrade this dashboard$/);
    } finally {
      await t.superPool.query("delete from drizzle.__drizzle_migrations where id = $1", [
        rows[0]?.id,
      ]);
    }
  });
});
