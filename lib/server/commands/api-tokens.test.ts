// API tokens against real rows: the secret is returned once and only its sha256 is stored;
// revoking is idempotent; a token resolves to exactly its scopes until revoked, and its last
// use is written (at most once a minute).
import { describe, expect, it } from "vitest";
import { setUpTestDatabase } from "../../../db/testing/database";
import { viewerFromToken } from "../../auth/viewer";
import { operator } from "../../domain/access";
import { hashToken } from "../../domain/api-token";
import { createApiToken, type NewToken, revokeApiToken } from "./api-tokens";

const t = await setUpTestDatabase("api-tokens");

async function systemEntries() {
  const { rows } = await t.pool.query<{ kind: string; actor: string; data: unknown }>(
    "select kind, actor, data from ledger_entries where stream = 'system' order by seq",
  );
  return rows;
}

async function create(name: string, scopes: string[], actor = "user:admin@example.com") {
  // Scopes as a form sends them: plain strings, checked by the command.
  const r = await createApiToken(t.pool, operator(actor), {
    name,
    scopes: scopes as NewToken["scopes"],
  });
  if (!r.ok) throw new Error(r.message);
  return r.value;
}

describe("createApiToken", () => {
  it("returns the token once and stores only its hash and prefix", async () => {
    const created = await create("billing", ["tasks:read", "tasks:enqueue", "tasks:read"]);
    expect(created.token).toMatch(/^alt_[A-Za-z0-9_-]{43}$/);
    expect(created.scopes).toEqual(["tasks:enqueue", "tasks:read"]);
    expect(created.prefix).toBe(created.token.slice(0, 12));

    const { rows } = await t.pool.query<{ row: string; hash: string; created_by: string }>(
      "select row_to_json(t)::text as row, hash, created_by from api_tokens t where id = $1",
      [created.id],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]?.hash).toBe(hashToken(created.token));
    expect(rows[0]?.created_by).toBe("user:admin@example.com");
    // Nothing but the prefix of the secret is anywhere in the row.
    expect(rows[0]?.row).not.toContain(created.token.slice(12));

    const entry = (await systemEntries()).at(-1);
    expect(entry).toEqual({
      kind: "token.created",
      actor: "user:admin@example.com",
      data: {
        tokenId: created.id,
        name: "billing",
        prefix: created.prefix,
        scopes: ["tasks:enqueue", "tasks:read"],
      },
    });
    expect(JSON.stringify(await systemEntries())).not.toContain(created.token.slice(12));
    expect(JSON.stringify(await systemEntries())).not.toContain(hashToken(created.token));
  });

  it("refuses unknown scopes, no scopes, bad names and a second active token of one name", async () => {
    const bad = await createApiToken(
      t.pool,
      operator("a"),
      // @ts-expect-error: a scope from outside the type
      { name: "x", scopes: ["tasks:read", "root"] },
    );
    expect(bad).toMatchObject({ ok: false, code: "invalid" });
    expect(!bad.ok && bad.message).toContain("each scope must be one of");
    expect(await createApiToken(t.pool, operator("a"), { name: "x", scopes: [] })).toMatchObject({
      ok: false,
      code: "invalid",
      message: "scopes: choose at least one scope",
    });
    expect(
      await createApiToken(t.pool, operator("a"), { name: "<script>", scopes: ["tasks:read"] }),
    ).toMatchObject({ ok: false, code: "invalid" });

    const first = await create("ci", ["tasks:read"]);
    const before = (await systemEntries()).length;
    expect(
      await createApiToken(t.pool, operator("a"), { name: "ci", scopes: ["ledger:read"] }),
    ).toEqual({
      ok: false,
      code: "conflict",
      message: 'an active token named "ci" already exists',
    });
    expect(await systemEntries()).toHaveLength(before);
    // Once revoked, the name is free again.
    expect(await revokeApiToken(t.pool, operator("a"), { tokenId: first.id })).toMatchObject({
      ok: true,
    });
    const second = await create("ci", ["ledger:read"]);
    expect(second.id).not.toBe(first.id);
    const { rows } = await t.pool.query(
      "select count(*)::int as n from api_tokens where name = 'ci'",
    );
    expect(rows[0]?.n).toBe(2);
  });
});

describe("revokeApiToken", () => {
  it("revokes once with who and when; revoking again changes and records nothing", async () => {
    const created = await create("revoke-me", ["tasks:read"]);
    expect(await revokeApiToken(t.pool, operator("cli:root"), { tokenId: created.id })).toEqual({
      ok: true,
      value: { id: created.id, revoked: true },
    });
    const first = await t.pool.query<{ revoked_at: Date; revoked_by: string }>(
      "select revoked_at, revoked_by from api_tokens where id = $1",
      [created.id],
    );
    expect(first.rows[0]?.revoked_by).toBe("cli:root");
    expect(first.rows[0]?.revoked_at).toBeInstanceOf(Date);
    const entries = await systemEntries();
    expect(entries.at(-1)).toEqual({
      kind: "token.revoked",
      actor: "cli:root",
      data: { tokenId: created.id, name: "revoke-me", prefix: created.prefix },
    });

    expect(
      await revokeApiToken(t.pool, operator("user:other@example.com"), { tokenId: created.id }),
    ).toEqual({
      ok: true,
      value: { id: created.id, revoked: true },
    });
    const again = await t.pool.query(
      "select revoked_at, revoked_by from api_tokens where id = $1",
      [created.id],
    );
    expect(again.rows[0]).toEqual(first.rows[0]);
    expect(await systemEntries()).toHaveLength(entries.length);
  });

  it("says not_found for an unknown id", async () => {
    expect(await revokeApiToken(t.pool, operator("a"), { tokenId: "no-such-token" })).toEqual({
      ok: false,
      code: "not_found",
      message: "no token no-such-token",
    });
  });
});

describe("viewerFromToken", () => {
  it("resolves a token to exactly its scopes, under its name", async () => {
    const created = await create("reader", ["ledger:read", "tasks:read"]);
    const viewer = await viewerFromToken(t.pool, created.token);
    expect(viewer).toEqual({
      kind: "token",
      id: created.id,
      name: "reader",
      scopes: new Set(["ledger:read", "tasks:read"]),
    });
  });

  it("rejects unknown, malformed and revoked tokens", async () => {
    const created = await create("short-lived", ["tasks:read"]);
    const unknown = `alt_${"A".repeat(43)}`;
    expect(await viewerFromToken(t.pool, unknown)).toBeNull();
    for (const malformed of [
      "",
      "alt_",
      created.token.slice(0, -1),
      `${created.token}x`,
      created.token.replace("alt_", "ALT_"),
      ` ${created.token}`,
      hashToken(created.token),
    ]) {
      expect(await viewerFromToken(t.pool, malformed), malformed).toBeNull();
    }
    expect(await viewerFromToken(t.pool, created.token)).not.toBeNull();
    await revokeApiToken(t.pool, operator("a"), { tokenId: created.id });
    expect(await viewerFromToken(t.pool, created.token)).toBeNull();
  });

  it("records the last use, at most once a minute", async () => {
    const created = await create("counted", ["tasks:read"]);
    const lastUsed = async () =>
      (
        await t.pool.query<{ last_used_at: Date | null }>(
          "select last_used_at from api_tokens where id = $1",
          [created.id],
        )
      ).rows[0]?.last_used_at ?? null;
    expect(await lastUsed()).toBeNull();

    await viewerFromToken(t.pool, created.token);
    const first = await lastUsed();
    expect(first).toBeInstanceOf(Date);
    await viewerFromToken(t.pool, created.token);
    expect(await lastUsed()).toEqual(first);

    await t.pool.query(
      "update api_tokens set last_used_at = now() - interval '2 minutes' where id = $1",
      [created.id],
    );
    const stale = await lastUsed();
    await viewerFromToken(t.pool, created.token);
    const refreshed = await lastUsed();
    expect(refreshed?.getTime()).toBeGreaterThan(stale?.getTime() ?? Number.POSITIVE_INFINITY);
  });
});
