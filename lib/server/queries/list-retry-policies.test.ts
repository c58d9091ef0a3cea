import { describe, expect, it } from "vitest";
import { setUpTestDatabase } from "../../../db/testing/database";
import { testTokenViewer, testViewer } from "../../auth/testing";
import { AuthError, operator } from "../../domain/access";
import { BUILT_IN_POLICY, resolvePolicy } from "../../domain/retry-policy";
import { setPolicy } from "../commands/set-policy";
import { listRetryPolicies, POLICY_CHANGES_LIMIT, POLICY_FIELDS } from "./list-retry-policies";

const t = await setUpTestDatabase("retry-policies");
const ops = testViewer("ops");

describe("listRetryPolicies", () => {
  it("falls back to the built-in policy when nothing is set", async () => {
    const p = await listRetryPolicies(t.db, ops);
    expect(p.builtIn).toEqual(BUILT_IN_POLICY);
    expect(p.global).toBeNull();
    expect(p.agentRows).toEqual([]);
    expect(p.inForce).toEqual([]);
    expect(p.changes).toEqual([]);

    await t.pool.query(
      "insert into tasks (agent, input, created_by) values ('mailer', '{}', 't'), ('mailer', '{}', 't')",
    );
    const withTask = await listRetryPolicies(t.db, ops);
    expect(withTask.inForce).toHaveLength(1);
    const mailer = withTask.inForce[0];
    expect(mailer?.agent).toBe("mailer");
    expect(mailer?.hasRow).toBe(false);
    for (const f of POLICY_FIELDS) {
      expect(mailer?.fields[f]).toEqual({ value: BUILT_IN_POLICY[f], source: "built-in" });
    }
  });

  it("shows the rows set through set-policy, with the level each value in force comes from", async () => {
    expect(
      await setPolicy(t.pool, operator("admin@example.com"), {
        scope: "global",
        version: null,
        policy: { maxAttempts: 4, budget: 2 },
      }),
    ).toMatchObject({ ok: true });
    expect(
      await setPolicy(t.pool, operator("ops@example.com"), {
        scope: "agent:refund",
        version: null,
        policy: { maxAttempts: 8, backoffInitialMs: 250 },
      }),
    ).toMatchObject({ ok: true });
    expect(
      await setPolicy(t.pool, operator("ops@example.com"), {
        scope: "agent:refund",
        version: 1,
        policy: { maxAttempts: 9, backoffInitialMs: 250 },
      }),
    ).toMatchObject({ ok: true });
    await t.pool.query("insert into tasks (agent, input, created_by) values ('alpha', '{}', 't')");

    const p = await listRetryPolicies(t.db, ops);
    expect(p.global).toMatchObject({
      scope: "global",
      agent: null,
      version: 1,
      updatedBy: "admin@example.com",
      values: { ...BUILT_IN_POLICY, maxAttempts: 4, budget: 2 },
    });
    expect(p.agentRows).toEqual([
      expect.objectContaining({
        scope: "agent:refund",
        agent: "refund",
        version: 2,
        updatedBy: "ops@example.com",
        values: {
          maxAttempts: 9,
          backoffInitialMs: 250,
          backoffFactor: null,
          backoffMaxMs: null,
          attemptTimeoutMs: null,
          budget: null,
        },
      }),
    ]);
    // Agents with tasks and agents with a row, each once, by name.
    expect(p.inForce.map((a) => [a.agent, a.hasRow])).toEqual([
      ["alpha", false],
      ["mailer", false],
      ["refund", true],
    ]);
    const refund = p.inForce.find((a) => a.agent === "refund");
    expect(refund?.fields.maxAttempts).toEqual({ value: 9, source: "agent" });
    expect(refund?.fields.backoffInitialMs).toEqual({ value: 250, source: "agent" });
    expect(refund?.fields.budget).toEqual({ value: 2, source: "global" });
    expect(refund?.fields.backoffFactor).toEqual({ value: 2, source: "global" });
    const alpha = p.inForce.find((a) => a.agent === "alpha");
    expect(alpha?.fields.maxAttempts).toEqual({ value: 4, source: "global" });

    // The values are the ones the worker's rule resolves to.
    for (const a of p.inForce) {
      const row = p.agentRows.find((r) => r.agent === a.agent);
      const strip = (v: Record<string, number | null> | undefined) =>
        v ? Object.fromEntries(Object.entries(v).filter(([, x]) => x !== null)) : null;
      const expected = resolvePolicy({
        agent: strip(row?.values),
        global: strip(p.global?.values),
      });
      expect(Object.fromEntries(POLICY_FIELDS.map((f) => [f, a.fields[f].value]))).toEqual(
        expected,
      );
    }

    expect(p.changes.map((c) => [c.scope, c.actor])).toEqual([
      ["agent:refund", "ops@example.com"],
      ["agent:refund", "ops@example.com"],
      ["global", "admin@example.com"],
    ]);
    expect(p.changes[0]?.before).toEqual({ maxAttempts: 8, backoffInitialMs: 250 });
    expect(p.changes[0]?.after).toEqual({ maxAttempts: 9, backoffInitialMs: 250 });
    expect(p.changes[2]?.before).toBeNull();
  });

  it(`lists only the ${POLICY_CHANGES_LIMIT} latest changes`, async () => {
    for (let i = 0; i < POLICY_CHANGES_LIMIT; i++) {
      const current = await listRetryPolicies(t.db, ops);
      const row = current.agentRows.find((r) => r.agent === "refund");
      await setPolicy(t.pool, operator(`admin${i}@example.com`), {
        scope: "agent:refund",
        version: row?.version ?? null,
        policy: { maxAttempts: 10 + i },
      });
    }
    const p = await listRetryPolicies(t.db, ops);
    expect(p.changes).toHaveLength(POLICY_CHANGES_LIMIT);
    expect(p.changes[0]?.actor).toBe(`admin${POLICY_CHANGES_LIMIT - 1}@example.com`);
    expect(p.agentRows[0]?.values.maxAttempts).toBe(10 + POLICY_CHANGES_LIMIT - 1);
  });
});

describe("listRetryPolicies authorization", () => {
  it("refuses without a viewer (401) and without tasks:read (403)", async () => {
    await expect(listRetryPolicies(t.db, null)).rejects.toMatchObject({
      name: "AuthError",
      status: 401,
    });
    const denied = listRetryPolicies(t.db, testTokenViewer(["ledger:read"], "reader"));
    await expect(denied).rejects.toBeInstanceOf(AuthError);
    await expect(denied).rejects.toMatchObject({
      status: 403,
      message: 'token "reader" may not do this (needs tasks:read)',
    });
  });
});
