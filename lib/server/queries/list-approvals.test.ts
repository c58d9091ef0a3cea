import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { setUpTestDatabase } from "../../../db/testing/database";
import { testTokenViewer, testViewer } from "../../auth/testing";
import { AuthError } from "../../domain/access";
import { DECIDED_APPROVALS_LIMIT, listApprovals, PENDING_APPROVALS_LIMIT } from "./list-approvals";
import { HIDDEN_PAYLOAD } from "./payloads";

const t = await setUpTestDatabase("approvals-list");
const ops = testViewer("ops");

const newKey = () => randomBytes(32).toString("hex");

async function task(agent: string, status = "awaiting_approval"): Promise<string> {
  const { rows } = await t.pool.query<{ id: string }>(
    "insert into tasks (agent, input, status, created_by) values ($1, '{}', $2, 't') returning id",
    [agent, status],
  );
  return rows[0]?.id ?? "";
}

async function approval(
  taskId: string,
  args: unknown,
  opts: { ageMinutes?: number; decided?: "approved" | "rejected"; decidedMinutesAgo?: number } = {},
): Promise<{ id: number; key: string }> {
  const key = newKey();
  const { rows } = await t.pool.query<{ id: number }>(
    `insert into approvals (task_id, effect_key, fingerprint, tool, args, requested_at, status, decided_by, decided_at, reason)
     values ($1, $2, $3, 'refund', $4, now() - make_interval(mins => $5),
             coalesce($6, 'pending'), case when $6::text is null then null else 'rita@example.com' end,
             case when $6::text is null then null else now() - make_interval(mins => $7) end,
             case when $6::text = 'rejected' then 'too large' end)
     returning id`,
    [
      taskId,
      key,
      newKey(),
      JSON.stringify(args),
      opts.ageMinutes ?? 0,
      opts.decided ?? null,
      opts.decidedMinutesAgo ?? 0,
    ],
  );
  return { id: rows[0]?.id ?? 0, key };
}

describe("listApprovals", () => {
  it("is empty on an empty database", async () => {
    const a = await listApprovals(t.db, ops);
    expect(a).toMatchObject({ pending: [], pendingTotal: 0, decided: [] });
    expect(Number.isNaN(Date.parse(a.asOf))).toBe(false);
  });

  it("lists pending requests oldest first with their task, payload and wait", async () => {
    const refundTask = await task("refund");
    const otherTask = await task("payout");
    const newer = await approval(refundTask, { amountCents: 48_000 }, { ageMinutes: 5 });
    const older = await approval(
      otherTask,
      { amountCents: 120_000, to: "<b>x</b>" },
      {
        ageMinutes: 90,
      },
    );
    await approval(refundTask, { amountCents: 1 }, { decided: "approved", ageMinutes: 200 });

    const a = await listApprovals(t.db, ops);
    expect(a.pendingTotal).toBe(2);
    expect(a.pending.map((p) => p.id)).toEqual([older.id, newer.id]);
    expect(a.pending[0]).toMatchObject({
      taskId: otherTask,
      agent: "payout",
      taskStatus: "awaiting_approval",
      tool: "refund",
      effectKey: older.key,
      args: { amountCents: 120_000, to: "<b>x</b>" },
    });
    expect(a.pending[0]?.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(a.pending[0]?.waitedSeconds).toBeGreaterThanOrEqual(90 * 60 - 5);
    expect(a.pending[0]?.waitedSeconds).toBeLessThan(91 * 60);
    expect(a.pending[1]?.waitedSeconds).toBeLessThan(6 * 60);
  });

  it("lists decisions newest first with who decided and why", async () => {
    const id = await task("refund", "rejected");
    const first = await approval(id, { n: 1 }, { decided: "rejected", decidedMinutesAgo: 30 });
    const second = await approval(id, { n: 2 }, { decided: "approved", decidedMinutesAgo: 1 });
    const a = await listApprovals(t.db, ops);
    const mine = a.decided.filter((d) => d.taskId === id);
    expect(mine.map((d) => [d.id, d.status, d.decidedBy, d.reason])).toEqual([
      [second.id, "approved", "rita@example.com", null],
      [first.id, "rejected", "rita@example.com", "too large"],
    ]);
    expect(mine[0]?.usedAt).toBeNull();
    expect(mine[0]?.decidedAt).toMatch(/Z$/);
    expect(
      a.decided.every((d, i, all) => i === 0 || (all[i - 1]?.decidedAt ?? "") >= d.decidedAt),
    ).toBe(true);
  });

  it("caps both lists but counts every pending request", async () => {
    const id = await task("bulk");
    for (let i = 0; i < PENDING_APPROVALS_LIMIT + 3; i++) await approval(id, { i });
    for (let i = 0; i < DECIDED_APPROVALS_LIMIT + 3; i++) {
      await approval(id, { i }, { decided: "approved", decidedMinutesAgo: i });
    }
    const a = await listApprovals(t.db, ops);
    expect(a.pending).toHaveLength(PENDING_APPROVALS_LIMIT);
    expect(a.pendingTotal).toBe(PENDING_APPROVALS_LIMIT + 3 + 2);
    expect(a.decided).toHaveLength(DECIDED_APPROVALS_LIMIT);
  });
});

describe("listApprovals authorization", () => {
  it("refuses without a viewer (401) and without tasks:read (403)", async () => {
    await expect(listApprovals(t.db, null)).rejects.toMatchObject({
      name: "AuthError",
      status: 401,
    });
    const denied = listApprovals(t.db, testTokenViewer(["ledger:read"], "reader"));
    await expect(denied).rejects.toBeInstanceOf(AuthError);
    await expect(denied).rejects.toMatchObject({
      status: 403,
      message: 'token "reader" may not do this (needs tasks:read)',
    });
  });

  it("hides the arguments from a viewer without payloads:read, and nothing else", async () => {
    const id = await task("secret");
    await approval(id, { iban: "DE89 3704 0044 0532 0130 00" }, { ageMinutes: 999 });
    const hidden = await listApprovals(t.db, testTokenViewer(["tasks:read"]));
    const full = await listApprovals(t.db, ops);
    expect(hidden.payloadsHidden).toBe(true);
    expect(full.payloadsHidden).toBe(false);
    expect(full.pending[0]?.args).toEqual({ iban: "DE89 3704 0044 0532 0130 00" });
    expect(hidden.pending.length + hidden.decided.length).toBeGreaterThan(0);
    for (const a of [...hidden.pending, ...hidden.decided]) expect(a.args).toBe(HIDDEN_PAYLOAD);
    expect(JSON.stringify(hidden)).not.toContain("DE89");
    const strip = (a: { args: unknown }) => ({ ...a, args: null });
    expect(hidden.decided.map(strip)).toEqual(full.decided.map(strip));
    expect(hidden.pending.map((p) => [p.id, p.fingerprint, p.tool])).toEqual(
      full.pending.map((p) => [p.id, p.fingerprint, p.tool]),
    );
  });
});
