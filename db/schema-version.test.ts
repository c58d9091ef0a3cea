import { describe, expect, it } from "vitest";
import {
  assertSchemaCurrent,
  CODE_VERSION,
  checkSchema,
  compareMigrations,
  SchemaVersionError,
  shippedMigrations,
} from "./schema-version";
import { setUpTestDatabase } from "./testing/database";

const t = await setUpTestDatabase("schema_version");
const shipped = shippedMigrations();
const last = shipped.at(-1);
const previous = shipped.at(-2);
if (!last || !previous) throw new Error("the journal ships fewer than two migrations");
const num = (tag: string) => tag.slice(0, 4);

describe("checkSchema against real PostgreSQL", () => {
  it("passes on a database migrated by this code, as the app role", async () => {
    const check = await assertSchemaCurrent(t.pool);
    expect(check.state).toBe("current");
    expect(check.applied).toEqual({ count: shipped.length, latest: last.tag, unknown: 0 });
    expect(check.expected).toEqual({ count: shipped.length, latest: last.tag });
    expect(check.changed).toEqual([]);
  });

  it("refuses a database that lacks the last migration: behind, and says to migrate", async () => {
    await t.asSuperuserRolledBack(async (client) => {
      await client.query(
        "delete from drizzle.__drizzle_migrations where created_at = (select max(created_at) from drizzle.__drizzle_migrations)",
      );
      const check = await checkSchema(client);
      expect(check.state).toBe("behind");
      expect(check.applied.latest).toBe(previous.tag);
      expect(check.message).toBe(
        `the database schema is at migration ${num(previous.tag)} (${previous.tag}); this worker needs ${num(last.tag)} (${last.tag}): run \`agent-ledger migrate\``,
      );
      const refused = await assertSchemaCurrent(client, { who: "dashboard" }).catch((e) => e);
      expect(refused).toBeInstanceOf(SchemaVersionError);
      expect((refused as SchemaVersionError).message).toContain("this dashboard needs");
    });
  });

  it("refuses a database a newer release migrated: ahead, and says to upgrade", async () => {
    await t.asSuperuserRolledBack(async (client) => {
      const later = last.when + 86_400_000;
      await client.query(
        "insert into drizzle.__drizzle_migrations (hash, created_at) values ('f00d', $1)",
        [later],
      );
      const check = await checkSchema(client);
      expect(check.state).toBe("ahead");
      expect(check.applied.unknown).toBe(1);
      const unknownNumber = String(shipped.length).padStart(4, "0");
      expect(check.message).toBe(
        `the database was migrated by a newer agent-ledger (migration ${unknownNumber} of ${new Date(later).toISOString()} unknown to this version ${CODE_VERSION}, which knows up to ${num(last.tag)}): upgrade this worker`,
      );
      await expect(assertSchemaCurrent(client)).rejects.toThrow(/upgrade this worker$/);
    });
  });

  it("a database never migrated is behind with nothing applied", async () => {
    await t.asSuperuserRolledBack(async (client) => {
      await client.query("drop schema drizzle cascade");
      const check = await checkSchema(client);
      expect(check.state).toBe("behind");
      expect(check.applied).toEqual({ count: 0, latest: null, unknown: 0 });
      expect(check.message).toMatch(/^the database schema has no agent-ledger migration applied;/);
    });
  });
});

describe("compareMigrations", () => {
  const ship = [
    { tag: "0000_a", when: 10, hash: "h0" },
    { tag: "0001_b", when: 20, hash: "h1" },
    { tag: "0002_c", when: 30, hash: "h2" },
  ];
  const applied = ship.map((m) => ({ hash: m.hash, createdAt: m.when }));

  it("an edited file that already ran is reported, not refused", () => {
    const check = compareMigrations(
      ship,
      [applied[0], { hash: "edited", createdAt: 20 }, applied[2]].flatMap((a) => a ?? []),
    );
    expect(check.state).toBe("current");
    expect(check.changed).toEqual(["0001_b"]);
    expect(check.message).toContain("applied from files since edited: 0001_b");
  });

  it("a hole below the latest applied is behind, and says migrate will not fill it", () => {
    const check = compareMigrations(
      ship,
      [applied[0], applied[2]].flatMap((a) => a ?? []),
    );
    expect(check.state).toBe("behind");
    expect(check.message).toContain("0001_b missing below the latest applied");
  });

  it("ahead wins over behind: an unknown migration means a newer release touched it", () => {
    const check = compareMigrations(
      ship,
      [applied[0], { hash: "x", createdAt: 40 }].flatMap((a) => a ?? []),
    );
    expect(check.state).toBe("ahead");
  });
});
