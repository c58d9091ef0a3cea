import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { setUpTestDatabase } from "../../../db/testing/database";
import { testViewer } from "../../auth/testing";
import { AuthError } from "../../domain/access";
import { getApprovalsScreen } from "./get-approvals-screen";

const t = await setUpTestDatabase("approvals-screen");
const newKey = () => randomBytes(32).toString("hex");

async function parked(money: boolean): Promise<{ taskId: string; approvalId: number }> {
  const { rows } = await t.pool.query<{ id: string }>(
    "insert into tasks (agent, input, status, version, created_by) values ('refund', '{}', 'awaiting_approval', 3, 't') returning id",
  );
  const taskId = rows[0]?.id ?? "";
  const approval = await t.pool.query<{ id: number }>(
    `insert into approvals (task_id, effect_key, fingerprint, tool, args, money)
     values ($1, $2, $3, 'refund', '{"amountCents": 48000}', $4) returning id`,
    [taskId, newKey(), newKey(), money],
  );
  return { taskId, approvalId: approval.rows[0]?.id ?? 0 };
}

describe("getApprovalsScreen", () => {
  it("pairs every pending request with the version and two-person state its buttons act on", async () => {
    const plain = await parked(false);
    const money = await parked(true);
    const screen = await getApprovalsScreen(t.db, t.pool, testViewer("reviewer"));
    expect(screen.approvals.pending.map((a) => a.id)).toEqual(
      expect.arrayContaining([plain.approvalId, money.approvalId]),
    );
    expect(Object.keys(screen.reviews).sort()).toEqual(
      screen.approvals.pending.map((a) => a.taskId).sort(),
    );
    expect(screen.reviews[plain.taskId]).toMatchObject({ version: 3, money: false });
    expect(screen.reviews[money.taskId]).toMatchObject({ version: 3, money: true });
    expect(screen.reviews[plain.taskId]?.allowed.approve.allowed).toBe(true);
  });

  it("lets a role that only reads see the requests but not decide them", async () => {
    const { taskId } = await parked(false);
    const screen = await getApprovalsScreen(t.db, t.pool, testViewer("ops"));
    expect(screen.reviews[taskId]?.allowed.approve.allowed).toBe(false);
  });

  it("refuses a viewer without tasks:read", async () => {
    await expect(getApprovalsScreen(t.db, t.pool, null)).rejects.toBeInstanceOf(AuthError);
  });
});
