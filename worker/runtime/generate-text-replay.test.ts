// A loop that reaches a gated tool parks, and resumes after approval without re-asking its
// turns. Replay from a middle turn of a generateText loop: the turns before it come from the journal
// (the model is not asked them again), the model is asked from that turn on, and a tool call it
// proposes again with the same intent deduplicates. The preview says so before anyone confirms.
import { describe, expect, it } from "vitest";
import { withTransaction } from "../../db/client";
import { setUpTestDatabase } from "../../db/testing/database";
import { operator } from "../../lib/domain/access";
import { deriveEffectKey } from "../../lib/domain/hash";
import { approveTask } from "../../lib/server/commands/approve-task";
import { replayTask } from "../../lib/server/commands/replay-task";
import { reviewPreview } from "../../lib/server/review/preview";
import { publishCatalog } from "./catalog";
import { refundLoopFixture } from "./refund-loop-fixture";
import { runtimeTestKit, setGlobalPolicy } from "./test-support";

const t = await setUpTestDatabase("generate_text_replay");
const kit = runtimeTestKit(t.pool);
const f = refundLoopFixture();
await setGlobalPolicy(t.pool, { maxAttempts: 2, backoffMs: 5, attemptTimeoutMs: 10_000 });
await withTransaction(t.pool, (c) => publishCatalog(c, [f.agent], "test"));

const attempt = () => kit.runOneAttempt("w1", [f.agent], { model: f.model });

/** A task whose loop refunded, then died on a refused notify (turn 3, step 7). */
async function deadAfterRefund(orderId: string): Promise<string> {
  f.hooks.refuseNotify.add(orderId);
  const id = await kit.enqueue("refund-loop", { orderId, tell: true });
  expect((await attempt())?.outcome).toBe("dead");
  expect(f.askedFor(orderId)).toEqual([1, 2, 3]);
  return id;
}

/** Replay from `fromStep`, requested by one reviewer and confirmed by another (money). */
async function replay(id: string, fromStep: number) {
  const { version } = await kit.task(id);
  const asked = await replayTask(t.pool, operator("rita"), { taskId: id, version, fromStep });
  expect(asked).toMatchObject({ ok: true, value: { waitingFor: expect.anything() } });
  const confirmed = await replayTask(t.pool, operator("sam"), { taskId: id, version, fromStep });
  expect(confirmed).toMatchObject({ ok: true, value: { status: "queued", waitingFor: null } });
  return confirmed.ok ? confirmed.value.preview : null;
}

describe("replay from a middle turn of a generateText loop", () => {
  it("keeps turn 1 from the journal, asks from turn 2, and the refund proposed again deduplicates", async () => {
    const id = await deadAfterRefund("A-1");
    const preview = await withTransaction(t.pool, (c) =>
      reviewPreview(c, { id, agent: "refund-loop" }, "replay", 4),
    );
    expect(preview.loop).toMatchObject({
      askedFrom: 2,
      keptTurns: 1,
      proposals: [
        { step: 5, tool: "refund", outcome: "dedupe", amount: { currency: "usd", minor: 4_000 } },
        { step: 7, tool: "notify", outcome: "act" },
      ],
    });
    expect(preview.loop?.note).toBe(
      "Turn 1 comes from the journal; from turn 2 the model is asked again: " +
        "the refund it proposed before (orderId A-1, USD 40.00) deduplicates if proposed again with the same intent; " +
        "the notify it proposed before (to a-1@example.com, refundId re_A-1_4000) did not happen, so it acts if proposed again; " +
        "a proposal with another intent acts, and the same intent with other arguments is a payload mismatch.",
    );
    expect(preview.twoPerson).toBe(true);

    const recorded = await replay(id, 4);
    expect(recorded?.loop?.note).toBe(preview.loop?.note);
    expect((await attempt())?.outcome).toBe("succeeded");
    // Turn 1 was not asked again; turns 2 and 3 were, and the model answered at turn 4.
    expect(f.askedFor("A-1")).toEqual([1, 2, 3, 2, 3, 4]);
    expect(f.executedFor("A-1")).toEqual(["lookup_order", "lookup_customer", "refund", "notify"]);
    const entries = await kit.entries(id);
    const refundKey = deriveEffectKey(id, "refund", { orderId: "A-1" });
    expect(entries.filter((e) => e.kind === "effect.deduplicated").map((e) => e.key)).toEqual([
      refundKey,
    ]);
    expect(entries.find((e) => e.kind === "replay.requested")?.data).toMatchObject({
      fromStep: 4,
      loop: preview.loop?.note,
    });
    expect((await kit.task(id)).result).toMatchObject({ text: "Refunded re_A-1_4000.", turns: 4 });
  });

  it("from turn 3 keeps turns 1-2, and a refund the model changes is stopped, not paid twice", async () => {
    const id = await deadAfterRefund("B-2");
    const fromTurn3 = await withTransaction(t.pool, (c) =>
      reviewPreview(c, { id, agent: "refund-loop" }, "replay", 6),
    );
    expect(fromTurn3.loop?.note).toMatch(
      /^Turns 1–2 come from the journal; from turn 3 the model is asked again: the notify it proposed before \(to b-2@example.com, refundId re_B-2_2500\) did not happen/,
    );

    // Asked again from turn 2, the model now proposes another amount for the same order.
    f.hooks.bump.set("B-2", 100);
    await replay(id, 4);
    expect((await attempt())?.outcome).toBe("dead");
    f.hooks.bump.delete("B-2");
    expect(await kit.task(id)).toMatchObject({ dead_reason: "payload_mismatch" });
    expect(f.askedFor("B-2")).toEqual([1, 2, 3, 2]);
    expect(f.executedFor("B-2").filter((n) => n === "refund")).toHaveLength(1);
  });

  it("says nothing about turns when the replay starts past the loop's journaled turns", async () => {
    const id = await deadAfterRefund("C-3");
    const preview = await withTransaction(t.pool, (c) =>
      reviewPreview(c, { id, agent: "refund-loop" }, "replay", 7),
    );
    expect(preview.loop).toBeNull();
  });

  it("parks at a gated refund and, once approved, resumes without asking the journaled turns again", async () => {
    const id = await kit.enqueue("refund-loop", { orderId: "D-4" });
    expect((await attempt())?.outcome).toBe("awaiting_approval");
    expect(f.executedFor("D-4")).toEqual(["lookup_order", "lookup_customer"]);
    const { version } = await kit.task(id);
    // A money tool: one reviewer asks, a second confirms.
    await approveTask(t.pool, operator("rita"), { taskId: id, version, action: "approve" });
    const approved = await approveTask(t.pool, operator("sam"), {
      taskId: id,
      version,
      action: "approve",
    });
    expect(approved).toMatchObject({ ok: true, value: { waitingFor: null } });
    expect((await attempt())?.outcome).toBe("succeeded");
    expect(f.askedFor("D-4")).toEqual([1, 2, 3]);
    expect(f.executedFor("D-4")).toEqual(["lookup_order", "lookup_customer", "refund"]);
  });
});
