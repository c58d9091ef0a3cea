// set-policy against real PostgreSQL: a policy.changed entry records, for each field the change
// sets differently, what was in force at the scope before and after and where it came from, so
// the history and the ledger read "Max attempts 6 (agent code) → 5"; numbers the runtime cannot
// honour are refused before anything is written.
import { describe, expect, it } from "vitest";
import { setUpTestDatabase } from "../../../db/testing/database";
import { testViewer } from "../../auth/testing";
import { operator } from "../../domain/access";
import type { JsonValue } from "../../domain/json";
import { summarizeEntry } from "../../domain/ledger-summary";
import { describePolicyChange } from "../../domain/policy-text";
import { verifyLedger } from "../ledger/verify-ledger";
import { listRetryPolicies } from "../queries/list-retry-policies";
import { setPolicy } from "./set-policy";

const t = await setUpTestDatabase("set_policy");
const admin = operator("user:admin@example.com");

async function publish(name: string, policy: unknown) {
  await t.pool.query(
    "insert into agent_catalog (name, input_schema, tools, policy, published_by) values ($1, '{}', '[]', $2, 'test')",
    [name, JSON.stringify(policy)],
  );
}

async function lastChange() {
  const { rows } = await t.pool.query<{ actor: string; data: { [key: string]: JsonValue } }>(
    "select actor, data from ledger_entries where kind = 'policy.changed' order by id desc limit 1",
  );
  const row = rows[0];
  if (!row) throw new Error("no policy.changed entry");
  return row;
}

describe("setPolicy records the value it replaced", () => {
  it("lowering a limit the agent's code set reads 6 (agent code) → 5, and clearing it back", async () => {
    await publish("refund", { maxAttempts: 6, backoffInitialMs: 500 });
    expect(
      await setPolicy(t.pool, admin, {
        scope: "global",
        version: null,
        policy: { maxAttempts: 3, attemptTimeoutMs: 30_000 },
      }),
    ).toMatchObject({ ok: true });
    expect((await lastChange()).data.inForce).toMatchObject({
      maxAttempts: {
        before: { value: 5, source: "built-in" },
        after: { value: 3, source: "global" },
      },
    });

    const lowered = await setPolicy(t.pool, admin, {
      scope: "agent:refund",
      version: null,
      policy: { maxAttempts: 5 },
    });
    expect(lowered).toMatchObject({ ok: true, value: { version: 1 } });
    const entry = await lastChange();
    expect(entry).toEqual({
      actor: admin.actor,
      data: {
        scope: "agent:refund",
        before: null,
        after: { maxAttempts: 5 },
        inForce: {
          maxAttempts: {
            before: { value: 6, source: "code" },
            after: { value: 5, source: "agent" },
          },
        },
      },
    });
    expect(summarizeEntry({ kind: "policy.changed", ...entry })).toBe(
      "by: admin@example.com · scope: agent:refund · Max attempts 6 (agent code) → 5",
    );

    // The history on the policies screen says the same.
    const screen = await listRetryPolicies(t.db, testViewer("admin"));
    const [latest] = screen.changes;
    expect(latest?.scope).toBe("agent:refund");
    expect(latest?.fields?.map((c) => describePolicyChange("agent:refund", c))).toEqual([
      "Max attempts 6 (agent code) → 5",
    ]);

    // Cleared, the field falls back to the code: 5 → 6 (agent code).
    const cleared = await setPolicy(t.pool, admin, {
      scope: "agent:refund",
      version: 1,
      policy: { attemptTimeoutMs: 20_000 },
    });
    expect(cleared).toMatchObject({ ok: true });
    expect((await lastChange()).data.inForce).toEqual({
      maxAttempts: { before: { value: 5, source: "agent" }, after: { value: 6, source: "code" } },
      attemptTimeoutMs: {
        before: { value: 30_000, source: "global" },
        after: { value: 20_000, source: "agent" },
      },
    });
  });

  it("an agent no worker published falls through to the global row", async () => {
    const r = await setPolicy(t.pool, admin, {
      scope: "agent:unpublished",
      version: null,
      policy: { maxAttempts: 2 },
    });
    expect(r).toMatchObject({ ok: true });
    expect((await lastChange()).data.inForce).toEqual({
      maxAttempts: { before: { value: 3, source: "global" }, after: { value: 2, source: "agent" } },
    });
  });

  it("refuses non-finite and out-of-range numbers, writing nothing", async () => {
    const before = await t.pool.query("select count(*)::int as n from ledger_entries");
    for (const policy of [
      { backoffFactor: Number.POSITIVE_INFINITY },
      { attemptTimeoutMs: JSON.parse(`1${"0".repeat(400)}`) },
      { attemptTimeoutMs: 2 ** 31 },
      { budget: 1e300 },
      { maxAttempts: Number.NaN },
      { backoffInitialMs: -1 },
    ]) {
      expect(
        await setPolicy(t.pool, admin, { scope: "agent:other", version: null, policy }),
      ).toMatchObject({ ok: false, code: "invalid" });
    }
    const after = await t.pool.query("select count(*)::int as n from ledger_entries");
    expect(after.rows).toEqual(before.rows);
  });

  it("leaves the system stream's chain whole", async () => {
    expect((await verifyLedger(t.pool)).problems).toEqual([]);
  });
});
