// The replay preview is a promise to the reviewer: over random journals and effect states, an
// effect it says "dedupe" is not performed by the real replay and one it says "act" is, once,
// whenever the replay reaches it. The replay runs through the runtime against real PostgreSQL.

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { withTransaction } from "../../db/client";
import { setUpTestDatabase } from "../../db/testing/database";
import { operator } from "../../lib/domain/access";
import { deriveEffectKey, payloadFingerprint } from "../../lib/domain/hash";
import type { ReplayPreview } from "../../lib/domain/replay-plan";
import { defineAgent, defineTool } from "../../lib/sdk/define";
import { replayTask } from "../../lib/server/commands/replay-task";
import { previewReplay } from "../../lib/server/review/preview";
import { runtimeTestKit } from "./test-support";

const t = await setUpTestDatabase("replay_preview");
const kit = runtimeTestKit(t.pool);

/** Deliveries by effect key. */
const performed = new Map<string, number>();
const perform = (key: string) => performed.set(key, (performed.get(key) ?? 0) + 1);

const toolFields = {
  input: z.object({ n: z.number().int() }),
  intent: (a: { n: number }) => ({ n: a.n }),
  execute: async (a: { n: number }, { idempotencyKey }: { idempotencyKey: string }) => {
    perform(idempotencyKey);
    return { done: a.n };
  },
};
/** Cannot be asked and does not honour keys: an unknown outcome goes to a human. */
const email = defineTool({ name: "email", ...toolFields });
/** Honours the key: an unknown outcome is resent with it. */
const charge = defineTool({ name: "charge", ...toolFields, providerIdempotent: true });

const StepKind = z.enum(["compute", "email", "charge"]);
type StepKind = z.infer<typeof StepKind>;

const replayer = defineAgent({
  name: "replayer",
  input: z.object({ plan: z.array(StepKind) }),
  tools: { email, charge },
  run: async (ctx, input) => {
    for (const [i, kind] of input.plan.entries()) {
      const n = i + 1;
      if (kind === "compute") await ctx.step(`compute-${n}`, async () => n);
      else if (kind === "email") await ctx.tool("email", { n });
      else await ctx.tool("charge", { n });
    }
    return null;
  },
});

type EffectState = "none" | "succeeded" | "failed" | "unknown" | "in_flight";
type Scenario = {
  plan: StepKind[];
  /** Steps 1..journaled completed before the task died. */
  journaled: number;
  /** What an earlier run left for each later tool step. */
  later: EffectState[];
  fromStep: number;
};

const scenarios: fc.Arbitrary<Scenario> = fc
  .array(fc.constantFrom<StepKind>("compute", "email", "charge"), { minLength: 1, maxLength: 6 })
  .chain((plan) =>
    fc.integer({ min: 0, max: plan.length }).chain((journaled) =>
      fc.record({
        plan: fc.constant(plan),
        journaled: fc.constant(journaled),
        later: fc.array(
          fc.constantFrom<EffectState>(
            "none",
            "succeeded",
            "succeeded",
            "failed",
            "failed",
            "unknown",
            "in_flight",
          ),
          { minLength: plan.length, maxLength: plan.length },
        ),
        fromStep: fc.integer({ min: 1, max: journaled + 1 }),
      }),
    ),
  );

/** Writes the journal and effects a dead task would have after `scenario`'s earlier runs. */
async function stage(s: Scenario): Promise<{ id: string; keys: Map<number, string> }> {
  const id = await kit.enqueue("replayer", { plan: s.plan }, { held: true });
  const keys = new Map<number, string>();
  for (const [i, kind] of s.plan.entries()) {
    const n = i + 1;
    const state: EffectState = n <= s.journaled ? "succeeded" : (s.later[i] ?? "none");
    let key: string | null = null;
    if (kind !== "compute") {
      key = deriveEffectKey(id, kind, { n });
      keys.set(n, key);
      if (state !== "none") {
        await t.pool.query(
          `insert into effects (key, task_id, step_seq, tool, intent, args, fingerprint, status, result, error,
                                lease_owner, lease_expires_at, completed_at)
           values ($1, $2, $3, $4, $5, $5, $6, $7, $8, $9, $10,
                   case $11 when 'in_flight' then now() + interval '1 minute'
                            when 'unknown' then now() - interval '1 second' end,
                   case when $7 = 'succeeded' then now() end)`,
          [
            key,
            id,
            n,
            kind,
            JSON.stringify({ n }),
            payloadFingerprint({ n }),
            state === "in_flight" || state === "unknown" ? "started" : state,
            state === "succeeded" ? JSON.stringify({ done: n }) : null,
            state === "failed" ? JSON.stringify({ name: "Error", message: "502" }) : null,
            state === "in_flight" ? "other-worker" : state === "unknown" ? "crashed-worker" : null,
            state,
          ],
        );
      }
    }
    if (n <= s.journaled) {
      await t.pool.query(
        `insert into steps (task_id, seq, kind, name, status, result, effect_key, attempt, completed_at)
         values ($1, $2, $3, $4, 'completed', $5, $6, 1, now())`,
        [
          id,
          n,
          kind === "compute" ? "step" : "tool",
          kind === "compute" ? `compute-${n}` : kind,
          JSON.stringify(kind === "compute" ? n : { done: n }),
          key,
        ],
      );
    }
  }
  await t.pool.query(
    "update tasks set status = 'dead', dead_reason = 'exhausted', attempts = 3 where id = $1",
    [id],
  );
  return { id, keys };
}

type Expected = { executed: Set<string>; deduped: Set<string>; status: string };

/** What the preview says the replay does, walked in order: a wait or a dead letter stops it. */
function expectedFrom(preview: ReplayPreview, s: Scenario, keys: Map<number, string>): Expected {
  const executed = new Set<string>();
  const deduped = new Set<string>();
  for (const [i, kind] of s.plan.entries()) {
    const n = i + 1;
    const key = keys.get(n);
    if (n < s.fromStep || kind === "compute" || key === undefined) continue;
    const effect = preview.effects.find((e) => e.step === n);
    if (effect === undefined) executed.add(key);
    else if (effect.outcome === "dedupe") deduped.add(key);
    else if (effect.outcome === "act") executed.add(key);
    else if (effect.outcome === "in_flight") return { executed, deduped, status: "queued" };
    else if (kind === "charge") executed.add(key);
    else return { executed, deduped, status: "dead" };
  }
  return { executed, deduped, status: "succeeded" };
}

describe("the replay preview", () => {
  it("predicts which effects the replay performs and which it deduplicates", async () => {
    await fc.assert(
      fc.asyncProperty(scenarios, async (s) => {
        const { id, keys } = await stage(s);
        const preview = await withTransaction(t.pool, (c) => previewReplay(c, id, s.fromStep));
        expect(preview.rerun.map((r) => r.seq)).toEqual(
          s.plan.map((_, i) => i + 1).filter((n) => n >= s.fromStep && n <= s.journaled),
        );
        const { version } = await kit.task(id);
        const replayed = await replayTask(t.pool, operator("rita@example.com"), {
          taskId: id,
          version,
          fromStep: s.fromStep,
        });
        if (!replayed.ok) throw new Error(replayed.message);
        expect(replayed.value.preview).toMatchObject(preview);

        const before = new Map(performed);
        const ran = await kit.runOneAttempt("replayer-worker", [replayer], {
          effectLeaseMs: 5_000,
        });
        expect(ran?.taskId).toBe(id);
        const expected = expectedFrom(preview, s, keys);
        const task = await kit.task(id);
        // A task left waiting on an in-flight effect must not be claimed by a later run.
        await t.pool.query(
          "update tasks set status = 'cancelled' where id = $1 and status = 'queued'",
          [id],
        );

        expect(task.status).toBe(expected.status);
        for (const key of keys.values()) {
          const times = (performed.get(key) ?? 0) - (before.get(key) ?? 0);
          expect(times, `effect ${key.slice(0, 8)}`).toBe(expected.executed.has(key) ? 1 : 0);
        }
        const dedupeEntries = (await kit.entries(id)).filter(
          (e) => e.kind === "effect.deduplicated",
        );
        expect(new Set(dedupeEntries.map((e) => e.key))).toEqual(expected.deduped);
      }),
      { numRuns: 50 },
    );
  });
});
