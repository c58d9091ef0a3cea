// The claim transaction's reads for an effect that cannot simply be claimed: a gated tool's
// approval, and a key claimed before (deduplicate, act again, wait, outcome unknown, payload
// mismatch), decided by lib/domain/effect-decision.ts and written to the ledger here.
import type { SqlClient } from "../../db/client";
import { decideExistingEffect } from "../../lib/domain/effect-decision";
import {
  EFFECT_START_KEY,
  type EffectStartData,
  effectStartData,
} from "../../lib/domain/effect-start";
import type { JsonValue } from "../../lib/domain/json";
import type { Tool } from "../../lib/sdk/define";
import { appendThrough } from "../../lib/server/ledger/append-known-head";
import type { NewLedgerEntry } from "../../lib/server/ledger/append-ledger";
import type { EffectRunner, EntryFn } from "./effect-runner";
import { DeadLetterError, SuspendError } from "./errors";

export type TakenOver = { at: Date; after: "retry" | "resend" };

type EffectRow = {
  key: string;
  fingerprint: string;
  args: JsonValue;
  status: "started" | "succeeded" | "failed";
  result: JsonValue;
  lease_owner: string | null;
  lease_live: boolean;
  age_ms: number;
  /** When the current claim was made (insert or take-over; the heartbeat leaves it). */
  updated_at: Date;
};

export type Claim =
  /**
   * `takenOver`: the key was claimed before and is claimed again now (at), to act again after
   * the provider said it had not (`retry`) or after an unknown outcome (`resend`).
   */
  | { action: "execute"; takenOver?: TakenOver }
  | { action: "return"; result: JsonValue }
  | { action: "reconcile"; takenOver: TakenOver }
  // Decided inside the claim transaction, thrown after it commits, so the ledger keeps why.
  | { action: "dead"; error: DeadLetterError }
  | { action: "park" };

/**
 * A gated effect may act when a reviewer approved this key with this exact payload, or when it
 * already happened (then it is only deduplicated). The first use is stamped on the approval.
 */
export async function approvedOrDone(
  client: SqlClient,
  key: string,
  fingerprint: string,
): Promise<boolean> {
  const { rows } = await client.query<{ ok: boolean }>({
    name: "runtime_check_approval",
    text: `with used as (
             update approvals set used_at = coalesce(used_at, now())
             where effect_key = $1 and fingerprint = $2 and status = 'approved'
             returning 1
           )
           select exists (select 1 from used)
               or exists (select 1 from effects where key = $1 and status = 'succeeded') as ok`,
    values: [key, fingerprint],
  });
  return rows[0]?.ok === true;
}

/** The key was claimed before: by an earlier attempt, a replay, or another worker. */
export async function resolveExisting(
  client: SqlClient,
  run: EffectRunner,
  tool: Tool,
  key: string,
  redacted: JsonValue,
  fingerprint: string,
  entry: EntryFn,
): Promise<Claim> {
  const { rows } = await client.query<EffectRow>({
    name: "runtime_lock_effect",
    text: `select key, fingerprint, args, status, result, lease_owner,
                  coalesce(lease_expires_at > now(), false) as lease_live,
                  (extract(epoch from now() - created_at) * 1000)::bigint as age_ms, updated_at
           from effects where key = $1 for update`,
    values: [key],
  });
  const existing = rows[0];
  if (!existing) throw new Error(`effect ${key} vanished while claiming it`);
  const { mismatch, next } = decideExistingEffect(
    {
      fingerprint: existing.fingerprint,
      status: existing.status,
      leaseLive: existing.lease_live,
      ageMs: Number(existing.age_ms),
    },
    fingerprint,
    {
      onPayloadMismatch: tool.onPayloadMismatch,
      hasReconcile: tool.reconcile !== undefined,
      providerIdempotent: tool.providerIdempotent === true,
      dedupWindowMs: tool.dedupWindowMs,
    },
  );

  if (mismatch) {
    await appendThrough(
      client,
      run.head,
      entry("effect.payload_mismatch", {
        first: { fingerprint: existing.fingerprint, args: existing.args },
        second: { fingerprint, args: redacted },
        policy: mismatch,
      }),
    );
  }
  switch (next.do) {
    case "dead-letter":
      return {
        action: "dead",
        error: new DeadLetterError(
          "payload_mismatch",
          `${tool.name}: the same intent was performed with different arguments (fingerprint ${existing.fingerprint.slice(0, 12)}… now ${fingerprint.slice(0, 12)}…)`,
        ),
      };
    case "deduplicate":
      await appendThrough(client, run.head, entry("effect.deduplicated", { fingerprint }));
      return { action: "return", result: existing.result };
    case "act-again":
      return {
        action: "execute",
        takenOver: { at: await takeOverEffect(client, run, key), after: "retry" },
      };
    case "wait":
      throw new SuspendError(
        new Date(Date.now() + Math.min(run.effectLeaseMs, 5_000)),
        `effect ${key.slice(0, 12)}… is in flight on ${existing.lease_owner ?? "another worker"}`,
      );
    case "outcome-unknown":
      await appendThrough(
        client,
        run.head,
        entry("effect.outcome_unknown", {
          action: next.action,
          ageMs: Number(existing.age_ms),
          ...(tool.providerIdempotent && next.pastDedupWindow
            ? { why: "past the provider's dedup window" }
            : {}),
          // Its claimer died holding it: nothing recorded that claim yet, this entry does. (A
          // claim released as outcome unknown has no owner: its release recorded it.)
          ...(existing.lease_owner
            ? {
                [EFFECT_START_KEY]: lapsedClaim({ ...existing, lease_owner: existing.lease_owner }),
              }
            : {}),
        }),
      );
      if (next.action === "dead-letter") {
        // The lapsed claim is recorded now: ended as its release would have, so whoever meets
        // the effect next (a reviewer's retry) does not record it again.
        if (existing.lease_owner) {
          await client.query({
            name: "runtime_effect_lapse_recorded",
            text: "update effects set lease_owner = null where key = $1 and status = 'started'",
            values: [key],
          });
        }
        return {
          action: "dead",
          error: new DeadLetterError(
            "outcome_unknown",
            `${tool.name}: an earlier attempt started this effect and never recorded a result; a reviewer must confirm whether it happened`,
          ),
        };
      }
      {
        const takenOver: TakenOver = {
          at: await takeOverEffect(client, run, key),
          after: "resend",
        };
        return next.action === "reconcile"
          ? { action: "reconcile", takenOver }
          : { action: "execute", takenOver };
      }
  }
}

/**
 * A claim whose claimer died before recording anything, as whoever finds it lapsed records it:
 * made at the row's last claim time, by the dead claimer.
 */
function lapsedClaim(e: {
  updated_at: Date;
  args: JsonValue;
  fingerprint: string;
  lease_owner: string;
}): EffectStartData {
  return effectStartData({
    at: e.updated_at,
    args: e.args,
    fingerprint: e.fingerprint,
    lapsed: { actor: `worker:${e.lease_owner}` },
  });
}

/**
 * The claims a lost attempt left lapsed on a task the reaper dead-letters: no later attempt will
 * meet them, so the reaper's entries record each now, as the attempt that finds a claim lapsed
 * would (`effect.outcome_unknown`, the claim carried with `lapsed: true` and its dead claimer),
 * and marks it recorded (no owner) as an outcome-unknown dead letter does. A claim whose lease
 * still runs is left to its claimer.
 */
export async function recordLapsedClaims(
  client: SqlClient,
  task: { id: string; attempts: number },
  actor: string,
  why: string,
): Promise<NewLedgerEntry[]> {
  const { rows } = await client.query<{
    key: string;
    tool: string;
    step_seq: number;
    args: JsonValue;
    fingerprint: string;
    lease_owner: string;
    updated_at: Date;
    age_ms: string;
  }>({
    name: "runtime_record_lapsed_claims",
    text: `with lapsed as (
             select key, lease_owner from effects
             where task_id = $1 and status = 'started' and lease_owner is not null
               and not coalesce(lease_expires_at > now(), false)
             order by step_seq, key
             for update
           )
           update effects e set lease_owner = null from lapsed l where e.key = l.key
           returning e.key, e.tool, e.step_seq, e.args, e.fingerprint, l.lease_owner, e.updated_at,
                     (extract(epoch from now() - e.created_at) * 1000)::bigint as age_ms`,
    values: [task.id],
  });
  return rows
    .sort((a, b) => a.step_seq - b.step_seq || (a.key < b.key ? -1 : 1))
    .map((e) => ({
      kind: "effect.outcome_unknown",
      actor,
      taskId: task.id,
      key: e.key,
      data: {
        tool: e.tool,
        step: e.step_seq,
        attempt: task.attempts,
        action: "dead-letter",
        ageMs: Number(e.age_ms),
        why,
        [EFFECT_START_KEY]: lapsedClaim(e),
      },
    }));
}

/** Claims the locked key for this attempt; returns the claim's time. */
async function takeOverEffect(client: SqlClient, run: EffectRunner, key: string): Promise<Date> {
  const { rows } = await client.query<{ at: Date }>({
    name: "runtime_take_over_effect",
    text: `update effects set status = 'started', lease_owner = $2, error = null,
             lease_expires_at = now() + $3 * interval '1 millisecond', attempts = attempts + 1, updated_at = now()
           where key = $1
           returning now() as at`,
    values: [key, run.worker, run.effectLeaseMs],
  });
  return rows[0]?.at ?? new Date();
}
