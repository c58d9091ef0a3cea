import { describe, expect, it } from "vitest";
import { withTransaction } from "../../../db/client";
import { setUpTestDatabase } from "../../../db/testing/database";
import { planReplay } from "../../domain/replay-plan";
import { previewReplay } from "./preview";

const t = await setUpTestDatabase("preview-replay");

const hex = (c: string) => c.repeat(64);

describe("planReplay", () => {
  const steps = [
    { seq: 3, kind: "tool", name: "send_email" },
    { seq: 1, kind: "step", name: "look-up-invoice" },
    { seq: 2, kind: "model", name: "model" },
    { seq: 4, kind: "sleep", name: "sleep" },
    { seq: 5, kind: "tool", name: "refund" },
  ];
  const effects = [
    { stepSeq: 5, tool: "refund", key: hex("b"), status: "failed" as const, live: false },
    { stepSeq: 3, tool: "send_email", key: hex("a"), status: "succeeded" as const, live: false },
    { stepSeq: 6, tool: "refund", key: hex("c"), status: "started" as const, live: true },
    { stepSeq: 7, tool: "refund", key: hex("d"), status: "started" as const, live: false },
  ];

  it("dedupes succeeded keys and acts on failed ones; a started key is in flight or unknown", () => {
    const plan = planReplay(steps, effects, 1);
    expect(plan.fromStep).toBe(1);
    expect(plan.rerun.map((s) => s.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(plan.effects.map((e) => [e.step, e.outcome])).toEqual([
      [3, "dedupe"],
      [5, "act"],
      [6, "in_flight"],
      [7, "outcome_unknown"],
    ]);
  });

  it("flags effects after a re-run model call or computation as possibly changing", () => {
    // From step 1 the computation at step 1 re-runs first: every effect after it may change.
    expect(planReplay(steps, effects, 1).effects.every((e) => e.mayChange)).toBe(true);
    // From step 3 only tools and a sleep re-run: journaled tool results come back as they were.
    const fromThree = planReplay(steps, effects, 3);
    expect(fromThree.rerun.map((s) => s.seq)).toEqual([3, 4, 5]);
    expect(fromThree.effects.map((e) => [e.step, e.mayChange])).toEqual([
      [3, false],
      [5, false],
      [6, false],
      [7, false],
    ]);
    // An effect at the model's own step is not downstream of it.
    expect(
      planReplay(
        [{ seq: 2, kind: "model", name: "model" }],
        [{ stepSeq: 2, tool: "send_email", key: hex("a"), status: "succeeded", live: false }],
        1,
      ).effects[0]?.mayChange,
    ).toBe(false);
  });

  it("leaves out steps and effects before the starting step", () => {
    const plan = planReplay(steps, effects, 6);
    expect(plan.rerun).toEqual([]);
    expect(plan.effects.map((e) => e.key)).toEqual([hex("c"), hex("d")]);
  });
});

describe("previewReplay", () => {
  it("reads the journal and effects, and agrees with the replay command's preview", async () => {
    const { rows } = await t.pool.query<{ id: string }>(
      "insert into tasks (agent, input, status, dead_reason, created_by) values ('a', '{}', 'dead', 'outcome_unknown', 't') returning id",
    );
    const id = rows[0]?.id ?? "";
    await t.pool.query(
      `insert into steps (task_id, seq, kind, name, status, result, effect_key, attempt, completed_at)
       values ($1, 1, 'step', 'look-up', 'completed', '{}', null, 1, now()),
              ($1, 2, 'tool', 'refund', 'completed', '{}', $2, 1, now()),
              ($1, 3, 'model', 'model', 'completed', '{}', null, 2, now())`,
      [id, hex("1")],
    );
    await t.pool.query(
      `insert into effects (key, task_id, step_seq, tool, intent, args, fingerprint, status, lease_owner, lease_expires_at)
       values ($2, $1, 2, 'refund', '{}', '{}', $2, 'succeeded', null, null),
              ($3, $1, 4, 'send_email', '{}', '{}', $3, 'started', 'w', now() - interval '1 minute'),
              ($4, $1, 5, 'send_email', '{}', '{}', $4, 'started', 'w', now() + interval '1 minute'),
              ($5, $1, 6, 'send_email', '{}', '{}', $5, 'failed', null, null)`,
      [id, hex("1"), hex("2"), hex("3"), hex("4")],
    );

    const mine = await withTransaction(t.pool, (c) => previewReplay(c, id, 1));
    expect(mine.rerun).toEqual([
      { seq: 1, kind: "step", name: "look-up" },
      { seq: 2, kind: "tool", name: "refund" },
      { seq: 3, kind: "model", name: "model" },
    ]);
    expect(mine.effects.map((e) => [e.step, e.tool, e.status, e.outcome, e.mayChange])).toEqual([
      [2, "refund", "succeeded", "dedupe", true],
      [4, "send_email", "started", "outcome_unknown", true],
      [5, "send_email", "started", "in_flight", true],
      [6, "send_email", "failed", "act", true],
    ]);
    const fromTwo = await withTransaction(t.pool, (c) => previewReplay(c, id, 2));
    expect(fromTwo.effects.map((e) => e.mayChange)).toEqual([false, true, true, true]);
  });
});
