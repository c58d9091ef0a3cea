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
          concurrencyLimit: null,
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
    // Field by field, before → after: only what changed.
    expect(p.changes[0]).toMatchObject({
      created: false,
      fields: [{ field: "maxAttempts", before: 8, after: 9 }],
      data: null,
    });
    expect(p.changes[1]).toMatchObject({
      created: true,
      fields: [
        { field: "maxAttempts", before: null, after: 8 },
        { field: "backoffInitialMs", before: null, after: 250 },
      ],
    });
    expect(p.changes[2]?.created).toBe(true);
    // A first global row sets every field (the built-in values where the admin left them).
    expect(p.changes[2]?.fields?.map((f) => [f.field, f.before])).toEqual(
      // All but the concurrency limit, which is an agent's own and never the global row's.
      POLICY_FIELDS.filter((f) => f !== "concurrencyLimit").map((f) => [f, null]),
    );
  });

  it("puts what the agent's code declares (its published catalog entry) between its row and global", async () => {
    await t.pool.query(
      `insert into agent_catalog (name, input_schema, tools, policy, version, published_by)
       values ('coder', '{}', '[]', '{"maxAttempts": 6, "backoffInitialMs": 500}', '1.4.0', 'w1'),
              ('refund', '{}', '[]', '{"maxAttempts": 7, "attemptTimeoutMs": 9000}', null, 'w1'),
              ('odd', '{}', '[]', '{"maxAttempts": 0}', 'sha-0badc0de', 'w1')`,
    );
    const p = await listRetryPolicies(t.db, ops);
    const coder = p.inForce.find((a) => a.agent === "coder");
    expect(coder?.hasRow).toBe(false);
    // The code version its worker published; none from a worker from before versions.
    expect(p.inForce.map((a) => [a.agent, a.codeVersion])).toEqual(
      expect.arrayContaining([
        ["coder", "1.4.0"],
        ["refund", null],
        ["odd", "sha-0badc0de"],
      ]),
    );
    expect(coder?.code).toEqual({
      maxAttempts: 6,
      backoffInitialMs: 500,
      backoffFactor: null,
      backoffMaxMs: null,
      attemptTimeoutMs: null,
      budget: null,
      concurrencyLimit: null,
    });
    expect(coder?.fields.maxAttempts).toEqual({ value: 6, source: "code" });
    expect(coder?.fields.backoffInitialMs).toEqual({ value: 500, source: "code" });
    expect(coder?.fields.backoffFactor.source).toBe("global");
    // An empty field of a new coder row would fall through to the code's 6.
    expect(coder?.inherited.maxAttempts).toEqual({ value: 6, source: "code" });

    // refund's admin row (9 attempts) wins over its code (7); its code's timeout over global.
    const refund = p.inForce.find((a) => a.agent === "refund");
    expect(refund?.fields.maxAttempts).toEqual({ value: 9, source: "agent" });
    expect(refund?.fields.attemptTimeoutMs).toEqual({ value: 9_000, source: "code" });
    expect(refund?.inherited.maxAttempts).toEqual({ value: 7, source: "code" });
    expect(refund?.inherited.backoffFactor.source).toBe("global");

    // A published policy out of bounds is not shown as if it applied.
    const odd = p.inForce.find((a) => a.agent === "odd");
    expect(odd?.code).toBeNull();
    expect(odd?.fields.maxAttempts.source).toBe("global");

    // The global row's empty fields would fall to the built-in defaults.
    expect(p.globalInherited.maxAttempts).toEqual({
      value: BUILT_IN_POLICY.maxAttempts,
      source: "built-in",
    });

    // The same rule the worker applies, levels named as the worker passes them.
    for (const a of p.inForce) {
      const row = p.agentRows.find((r) => r.agent === a.agent);
      const strip = (v: Record<string, number | null> | null | undefined) =>
        v ? Object.fromEntries(Object.entries(v).filter(([, x]) => x !== null)) : null;
      const expected = resolvePolicy({
        agent: strip(row?.values),
        code: strip(a.code),
        global: strip(p.global?.values),
      });
      expect(Object.fromEntries(POLICY_FIELDS.map((f) => [f, a.fields[f].value]))).toEqual(
        expected,
      );
    }
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
