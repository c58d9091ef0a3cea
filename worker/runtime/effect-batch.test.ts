// Group commit of effect claims and results against real PostgreSQL: claims that arrive
// together share a statement and each gets its own answer (claimed, claimed before, lease gone);
// results recorded together journal each step under its lease; the chains stay whole.
import { describe, expect, it } from "vitest";
import { setUpTestDatabase } from "../../db/testing/database";
import { watchNamedStatements } from "../../db/testing/statement-names";
import { deriveEffectKey } from "../../lib/domain/hash";
import { verifyLedger } from "../../lib/server/ledger/verify-ledger";
import { type ClaimedAttempt, claimBatch } from "./claim-batch";
import { type EffectClaim, effectBatchers } from "./effect-batch";
import { runtimeTestKit } from "./test-support";

const t = await setUpTestDatabase("effect_batch");
const kit = runtimeTestKit(t.pool);
const WORKER = "w-effects";

function claimOf(c: ClaimedAttempt): EffectClaim {
  const intent = { n: c.task.id };
  const key = deriveEffectKey(c.task.id, "notify", intent);
  return {
    key,
    taskId: c.task.id,
    stepSeq: 1,
    tool: "notify",
    intent,
    args: intent,
    fingerprint: "a".repeat(64),
    leaseMs: 30_000,
  };
}

describe("effectBatchers", () => {
  it("claims and records the effects of attempts running together, each with its own answer", async () => {
    for (let i = 0; i < 8; i++) await kit.enqueue("effects-a", { i });
    const claimed = await claimBatch(t.pool, WORKER, ["effects-a"], 8, 30_000);
    expect(claimed).toHaveLength(8);
    const [, before, stolen] = claimed;
    if (!before || !stolen) throw new Error("claim failed");
    const claims = claimed.map(claimOf);
    // One key was claimed by an earlier attempt; one task passed to another worker.
    await t.pool.query(
      `insert into effects (key, task_id, step_seq, tool, intent, args, fingerprint, status)
       values ($1, $2, 1, 'notify', '{}', '{}', $3, 'started')`,
      [claims[1]?.key, before.task.id, "a".repeat(64)],
    );
    await t.pool.query("update tasks set lease_owner = 'w-other' where id = $1", [stolen.task.id]);

    const sent = watchNamedStatements(t.pool);
    const batchers = effectBatchers(t.pool, WORKER);
    const answers = await Promise.all(claims.map((c) => batchers.claim(c)));
    expect(answers).toEqual(
      claimed.map((c) => ({
        leased: c !== stolen,
        inserted: c !== stolen && c !== before,
        at: expect.any(Date),
      })),
    );
    // The eight claims made in one turn of the event loop went as one statement, at one time.
    expect(sent.counts(["runtime_claim_effect", "runtime_claim_effects"])).toEqual({
      runtime_claim_effect: 0,
      runtime_claim_effects: 1,
    });
    expect(new Set(answers.map((a) => a.at.getTime())).size).toBe(1);
    // A claim writes no entry: the entry that ends it carries it.
    for (const c of claimed) {
      expect((await kit.entries(c.task.id)).map((e) => e.kind)).toEqual(["task.enqueued"]);
    }

    const acting = claimed.filter((c) => c !== stolen && c !== before);
    const recorded = await Promise.all(
      acting.map((c, i) =>
        batchers.record({
          key: claims[claimed.indexOf(c)]?.key as string,
          taskId: c.task.id,
          stepSeq: 1,
          tool: "notify",
          attempt: c.task.attempts,
          result: { delivered: i },
          inDoubt: false,
          head: c.head,
          entry: {
            kind: "effect.succeeded",
            actor: `worker:${WORKER}`,
            taskId: c.task.id,
            data: { result: { delivered: i } },
          },
        }),
      ),
    );
    expect(recorded).toEqual(acting.map(() => true));
    expect(sent.counts(["runtime_record_effect", "runtime_record_effects"])).toEqual({
      runtime_record_effect: 0,
      runtime_record_effects: 1,
    });
    for (const c of acting) {
      expect((await kit.effects(c.task.id)).map((e) => e.status)).toEqual(["succeeded"]);
      expect((await kit.entries(c.task.id)).map((e) => e.kind)).toEqual([
        "task.enqueued",
        "effect.succeeded",
      ]);
      expect((await kit.starts(c.task.id)).map((s) => s.on)).toEqual(["effect.succeeded"]);
      const { rows } = await t.pool.query(
        "select seq, kind, status from journal_steps where task_id = $1",
        [c.task.id],
      );
      expect(rows).toEqual([{ seq: 1, kind: "tool", status: "completed" }]);
      // Kept on its effect, the step has no row of its own (migration 0067).
      const kept = await t.pool.query(
        `select (select count(*)::int from steps where task_id = $1) as rows,
                (select journal_attempt from effects where task_id = $1) as attempt`,
        [c.task.id],
      );
      expect(kept.rows).toEqual([{ rows: 0, attempt: 1 }]);
    }
    // Nothing was written for the task whose lease was gone, nor a second claim of the old key.
    expect((await kit.entries(stolen.task.id)).map((e) => e.kind)).toEqual(["task.enqueued"]);
    expect((await kit.entries(before.task.id)).map((e) => e.kind)).toEqual(["task.enqueued"]);
    expect((await verifyLedger(t.pool)).problems).toEqual([]);
  });

  it("a result retried after its COMMIT answer was lost is journaled once and answers leased", async () => {
    await kit.enqueue("effects-b", { i: 0 });
    const [c] = await claimBatch(t.pool, WORKER, ["effects-b"], 1, 30_000);
    if (!c) throw new Error("claim failed");
    const claim = claimOf(c);
    const batchers = effectBatchers(t.pool, WORKER);
    expect(await batchers.claim(claim)).toMatchObject({ leased: true, inserted: true });
    const result = {
      key: claim.key,
      taskId: c.task.id,
      stepSeq: 1,
      tool: "notify",
      attempt: c.task.attempts,
      result: { delivered: 1 },
      inDoubt: false,
      head: c.head,
      entry: { kind: "effect.succeeded", actor: `worker:${WORKER}`, taskId: c.task.id, data: {} },
    };
    expect(await batchers.record(result)).toBe(true);
    // The same statement again, as the retry of a try whose COMMIT answer was lost.
    expect(await batchers.record({ ...result, inDoubt: true })).toBe(true);
    expect((await kit.entries(c.task.id)).map((e) => e.kind)).toEqual([
      "task.enqueued",
      "effect.succeeded",
    ]);
    const { rows } = await t.pool.query(
      `select (select count(*)::int from steps where task_id = $1) as rows,
              (select count(*)::int from journal_steps where task_id = $1) as journal`,
      [c.task.id],
    );
    expect(rows).toEqual([{ rows: 0, journal: 1 }]);
    expect((await verifyLedger(t.pool)).problems).toEqual([]);
  });
});
