// Users against real rows: created with a hashed credential, unique by email whatever its case,
// role changes and disabling recorded in the system stream with the actor, disabling ends the
// person's sessions, and the last active admin can be neither demoted nor disabled.
import { randomUUID } from "node:crypto";
import { verifyPassword } from "better-auth/crypto";
import { describe, expect, it } from "vitest";
import { setUpTestDatabase } from "../../../db/testing/database";
import { operator } from "../../domain/access";
import { verifyLedger } from "../ledger/verify-ledger";
import { createUser, seedDemoUsers, setUserDisabled, setUserRole } from "./users";

const t = await setUpTestDatabase("users");
const PASSWORD = "correct horse battery";

type Entry = { seq: number; kind: string; actor: string; data: Record<string, unknown> };

async function systemEntries(): Promise<Entry[]> {
  const { rows } = await t.pool.query<Entry>(
    "select seq, kind, actor, data from ledger_entries where stream = 'system' order by seq",
  );
  return rows;
}

async function newUser(email: string, role: "reviewer" | "ops" | "admin" = "reviewer") {
  const r = await createUser(t.pool, operator("user:boss@example.com"), {
    email,
    role,
    password: PASSWORD,
  });
  if (!r.ok) throw new Error(r.message);
  return r.value;
}

async function addSession(userId: string): Promise<string> {
  const id = randomUUID();
  await t.pool.query(
    `insert into sessions (id, token, user_id, expires_at) values ($1, $2, $3, now() + interval '1 hour')`,
    [id, `token-${id}`, userId],
  );
  return id;
}

describe("createUser", () => {
  it("stores the person, a hashed credential and a user.created entry with the actor", async () => {
    const before = (await systemEntries()).length;
    const r = await createUser(t.pool, operator("user:admin@example.com"), {
      email: "  Grace@Example.com ",
      name: "Grace",
      role: "ops",
      password: PASSWORD,
    });
    expect(r).toMatchObject({
      ok: true,
      value: { email: "grace@example.com", role: "ops", disabled: false },
    });
    if (!r.ok) return;
    const user = await t.pool.query("select name, email, role, disabled from users where id = $1", [
      r.value.id,
    ]);
    expect(user.rows).toEqual([
      { name: "Grace", email: "grace@example.com", role: "ops", disabled: false },
    ]);
    const account = await t.pool.query<{ provider_id: string; password: string }>(
      "select provider_id, password from accounts where user_id = $1",
      [r.value.id],
    );
    expect(account.rows).toHaveLength(1);
    const stored = account.rows[0];
    expect(stored?.provider_id).toBe("credential");
    expect(stored?.password).not.toContain(PASSWORD);
    expect(await verifyPassword({ hash: stored?.password ?? "", password: PASSWORD })).toBe(true);
    expect(await verifyPassword({ hash: stored?.password ?? "", password: "wrong" })).toBe(false);

    const entries = await systemEntries();
    expect(entries).toHaveLength(before + 1);
    expect(entries.at(-1)).toEqual({
      seq: before + 1,
      kind: "user.created",
      actor: "user:admin@example.com",
      data: { userId: r.value.id, email: "grace@example.com", name: "Grace", role: "ops" },
    });
    expect(JSON.stringify(entries)).not.toContain(PASSWORD);
  });

  it("names the person after their email when no name is given", async () => {
    const u = await newUser("linus@example.com");
    const { rows } = await t.pool.query("select name from users where id = $1", [u.id]);
    expect(rows[0]?.name).toBe("linus");
  });

  it("refuses a second account for the same email in any case, writing nothing", async () => {
    await newUser("dup@example.com");
    const before = (await systemEntries()).length;
    const again = await createUser(t.pool, operator("user:admin@example.com"), {
      email: "DUP@example.com",
      role: "admin",
      password: PASSWORD,
    });
    expect(again).toEqual({
      ok: false,
      code: "conflict",
      message: "a user with email dup@example.com already exists",
    });
    const { rows } = await t.pool.query(
      "select role from users where lower(email) = 'dup@example.com'",
    );
    expect(rows).toEqual([{ role: "reviewer" }]);
    expect(await systemEntries()).toHaveLength(before);
  });

  it("refuses bad input, saying which field", async () => {
    const short = await createUser(t.pool, operator("a"), {
      email: "short@example.com",
      role: "ops",
      password: "too-short",
    });
    expect(short).toMatchObject({ ok: false, code: "invalid" });
    expect(!short.ok && short.message).toContain("password: must be at least 12 characters");
    const email = await createUser(t.pool, operator("a"), {
      email: "not-an-email",
      role: "ops",
      password: PASSWORD,
    });
    expect(!email.ok && email.message).toContain("email: must be an email address");
    const role = await createUser(
      t.pool,
      operator("a"),
      // @ts-expect-error: a role from outside the type, as a form could send
      { email: "role@example.com", role: "root", password: PASSWORD },
    );
    expect(!role.ok && role.message).toContain("role: must be one of reviewer, ops, admin");
    const { rows } = await t.pool.query(
      "select 1 from users where email in ('short@example.com', 'role@example.com')",
    );
    expect(rows).toHaveLength(0);
  });

  it("seeds the demo users once", async () => {
    expect(await seedDemoUsers(t.pool, "system:seed")).toBe(3);
    expect(await seedDemoUsers(t.pool, "system:seed")).toBe(0);
    const { rows } = await t.pool.query(
      "select email, role from users where email like '%@example.com' and email in ('admin@example.com', 'reviewer@example.com', 'ops@example.com') order by email",
    );
    expect(rows).toEqual([
      { email: "admin@example.com", role: "admin" },
      { email: "ops@example.com", role: "ops" },
      { email: "reviewer@example.com", role: "reviewer" },
    ]);
  });
});

describe("setUserRole and setUserDisabled", () => {
  it("changes a role, recording before, after and who; the same role again records nothing", async () => {
    const u = await newUser("rolling@example.com", "reviewer");
    const changed = await setUserRole(t.pool, operator("user:admin@example.com"), {
      userId: u.id,
      role: "ops",
    });
    expect(changed).toEqual({
      ok: true,
      value: { id: u.id, email: "rolling@example.com", role: "ops", disabled: false },
    });
    const { rows } = await t.pool.query("select role from users where id = $1", [u.id]);
    expect(rows[0]?.role).toBe("ops");
    const entries = await systemEntries();
    expect(entries.at(-1)).toMatchObject({
      kind: "user.role_changed",
      actor: "user:admin@example.com",
      data: {
        userId: u.id,
        email: "rolling@example.com",
        before: { role: "reviewer", disabled: false },
        after: { role: "ops", disabled: false },
      },
    });
    expect(
      await setUserRole(t.pool, operator("user:admin@example.com"), { userId: u.id, role: "ops" }),
    ).toMatchObject({
      ok: true,
    });
    expect(await systemEntries()).toHaveLength(entries.length);
  });

  it("disabling ends that person's sessions (only theirs) and enabling lets them back", async () => {
    const u = await newUser("leaver@example.com", "reviewer");
    const other = await newUser("stayer@example.com", "reviewer");
    await addSession(u.id);
    await addSession(u.id);
    const kept = await addSession(other.id);

    const off = await setUserDisabled(t.pool, operator("cli:root"), {
      userId: u.id,
      disabled: true,
    });
    expect(off).toMatchObject({ ok: true, value: { disabled: true } });
    const sessions = await t.pool.query<{ id: string; user_id: string }>(
      "select id, user_id from sessions where user_id = any($1::text[])",
      [[u.id, other.id]],
    );
    expect(sessions.rows).toEqual([{ id: kept, user_id: other.id }]);
    expect((await systemEntries()).at(-1)).toMatchObject({
      kind: "user.disabled",
      actor: "cli:root",
      data: { userId: u.id, after: { disabled: true } },
    });

    const on = await setUserDisabled(t.pool, operator("cli:root"), {
      userId: u.id,
      disabled: false,
    });
    expect(on).toMatchObject({ ok: true, value: { disabled: false } });
    const row = await t.pool.query("select disabled from users where id = $1", [u.id]);
    expect(row.rows[0]?.disabled).toBe(false);
    expect((await systemEntries()).at(-1)).toMatchObject({
      kind: "user.enabled",
      actor: "cli:root",
    });
  });

  it("says not_found for an unknown id", async () => {
    expect(
      await setUserRole(t.pool, operator("a"), { userId: "no-such-user", role: "ops" }),
    ).toMatchObject({
      ok: false,
      code: "not_found",
    });
    expect(
      await setUserDisabled(t.pool, operator("a"), { userId: "no-such-user", disabled: true }),
    ).toMatchObject({
      ok: false,
      code: "not_found",
    });
  });

  it("never demotes or disables the last active admin", async () => {
    // Start from exactly one active admin.
    await t.pool.query("update users set role = 'ops' where role = 'admin'");
    const first = await newUser("first-admin@example.com", "admin");
    const before = (await systemEntries()).length;

    const demote = await setUserRole(t.pool, operator("user:first-admin@example.com"), {
      userId: first.id,
      role: "reviewer",
    });
    expect(demote).toEqual({
      ok: false,
      code: "conflict",
      message: "this is the last active admin; make another admin first",
    });
    expect(
      await setUserDisabled(t.pool, operator("cli:root"), { userId: first.id, disabled: true }),
    ).toMatchObject({
      ok: false,
      code: "conflict",
    });
    expect(await systemEntries()).toHaveLength(before);
    const still = await t.pool.query("select role, disabled from users where id = $1", [first.id]);
    expect(still.rows[0]).toEqual({ role: "admin", disabled: false });

    // A disabled second admin does not count …
    const second = await newUser("second-admin@example.com", "admin");
    expect(
      await setUserDisabled(t.pool, operator("cli:root"), { userId: second.id, disabled: true }),
    ).toMatchObject({ ok: true });
    expect(
      await setUserRole(t.pool, operator("cli:root"), { userId: first.id, role: "ops" }),
    ).toMatchObject({
      ok: false,
      code: "conflict",
    });
    // … an active one does.
    expect(
      await setUserDisabled(t.pool, operator("cli:root"), { userId: second.id, disabled: false }),
    ).toMatchObject({
      ok: true,
    });
    expect(
      await setUserRole(t.pool, operator("cli:root"), { userId: first.id, role: "ops" }),
    ).toMatchObject({
      ok: true,
      value: { role: "ops" },
    });
    // Now the second is the last one.
    expect(
      await setUserDisabled(t.pool, operator("cli:root"), { userId: second.id, disabled: true }),
    ).toMatchObject({
      ok: false,
      code: "conflict",
    });
  });

  it("keeps the system chain intact through all of it", async () => {
    const report = await verifyLedger(t.pool);
    expect(report.ok).toBe(true);
  });
});
