// performEffect: at most one real action per intent. Two commits carry the guarantee: the key
// is claimed (with its effect.started entry) before acting, and the result is recorded (with
// effect.succeeded and the step) after. Everything in between is what "outcome unknown" means.
// The result's commit rides the task's next statement: it is recorded before the agent's next
// step starts (context.ts), or with the task's success when the effect was its last
// (completion-batch.ts), so a one-effect task makes one statement fewer. A crash before that
// statement leaves the effect started without a result: outcome unknown, as a crash just
// before an immediate record would.
import type pg from "pg";
import { type SqlClient, withTransaction } from "../../db/client";
import { retryOnConnectionError } from "../../db/retry";
import { decideExistingEffect } from "../../lib/domain/effect-decision";
import { deriveEffectKey, payloadFingerprint } from "../../lib/domain/hash";
import { type JsonValue, toJsonValue } from "../../lib/domain/json";
import { movesMoney } from "../../lib/domain/money";
import type { RateLimitSpec } from "../../lib/domain/rate-limit";
import { holdsRedacted, redact } from "../../lib/domain/redact";
import type { ReconcileOutcome, Tool } from "../../lib/sdk/define";
import { EffectNotPerformedError, NonRetryableError, RateLimitedError } from "../../lib/sdk/errors";
import { faultPoint } from "../../lib/server/fault-points";
import { appendThrough, type HeadRef } from "../../lib/server/ledger/append-known-head";
import {
  CLAIM_EFFECT_SELECT,
  CLAIM_EFFECTS_CTES,
  type ClaimAnswer,
  claimValues,
  type EffectBatchers,
  type EffectResult,
} from "./effect-batch";
import { providerRateLimited, takeSlotOrWait } from "./effect-rate-limit";
import {
  ApprovalNeededError,
  DeadLetterError,
  LeaseLostError,
  SuspendError,
  serializeError,
} from "./errors";
import { journalStep } from "./journal";
import { ATTR, type ToolTrace } from "./tracing";

export type EffectRunner = {
  pool: pg.Pool;
  worker: string;
  taskId: string;
  attempt: number;
  /** How long an effect's claim lasts before it counts as outcome unknown. */
  effectLeaseMs: number;
  signal: AbortSignal;
  /** The task stream's head as this attempt last wrote it. */
  head: HeadRef;
  /** The worker's group commit of effect claims and results. */
  effects: EffectBatchers;
  /** Results this attempt has and has not recorded yet. */
  deferred: DeferredResults;
  /** Admins' tool rate limits by tool, read with the claim; they win over the code's. */
  toolLimits?: ReadonlyMap<string, RateLimitSpec>;
};

/**
 * Effect results held for the task's next statement. Closed once the attempt's run is over: a
 * tool still running then (the run timed out, or did not await it) records its result at once,
 * or the heartbeat would keep its claim alive without end.
 */
export type DeferredResults = {
  open: boolean;
  items: EffectResult[];
  /** The recording under way: parallel steps of one attempt wait for it, not past it. */
  recording?: Promise<boolean>;
};

/**
 * Records every deferred result, oldest first, each retried through a database outage, after
 * any recording already under way. False when the task's lease was gone: the results are
 * recorded all the same (each is a fact, whoever holds the task now), but the attempt must stop.
 */
export function recordDeferred(run: Pick<EffectRunner, "deferred" | "effects">): Promise<boolean> {
  const { deferred } = run;
  const recordAll = async () => {
    let leased = true;
    for (let item = deferred.items.shift(); item; item = deferred.items.shift()) {
      const result = item;
      const ours = await retryOnConnectionError(({ inDoubt }) =>
        run.effects.record({ ...result, inDoubt }),
      );
      leased = ours && leased;
    }
    return leased;
  };
  const next = (deferred.recording ?? Promise.resolve(true)).catch(() => true).then(recordAll);
  deferred.recording = next;
  return next;
}

type EffectRow = {
  key: string;
  fingerprint: string;
  args: JsonValue;
  status: "started" | "succeeded" | "failed";
  result: JsonValue;
  lease_owner: string | null;
  lease_live: boolean;
  age_ms: number;
};

type Claim =
  | { action: "execute" }
  | { action: "return"; result: JsonValue }
  | { action: "reconcile" }
  // Decided inside the claim transaction, thrown after it commits, so the ledger keeps why.
  | { action: "dead"; error: DeadLetterError }
  | { action: "park" };

export async function performEffect(
  run: EffectRunner,
  tool: Tool,
  rawArgs: unknown,
  stepSeq: number,
  /** The tool call's span (tracing.ts): the key goes on it, its headers to the provider. */
  trace?: ToolTrace,
  /** A rate-limit slot taken while the claim was released (effect-rate-limit.ts), ISO. */
  slotTaken?: string,
): Promise<JsonValue> {
  const sensitive = tool.sensitive ?? [];
  const parsed = tool.input.safeParse(rawArgs);
  if (!parsed.success) {
    // The walk reads any value safely; a placeholder can only be there if the args are JSON.
    if (holdsRedacted(rawArgs as JsonValue, sensitive)) {
      throw cannotActOnRedacted(tool);
    }
    throw new NonRetryableError(`tool ${tool.name}: invalid arguments: ${parsed.error.message}`);
  }
  const args = parsed.data;
  const plain = toJsonValue(args, `${tool.name} arguments`);
  const intent = toJsonValue(tool.intent(args), `${tool.name} intent`);
  const key = deriveEffectKey(run.taskId, tool.name, intent);
  trace?.span.setAttribute(ATTR.effectKey, key);
  // Placeholder arguments may only be deduplicated: returning the stored result needs none of
  // the redacted values, acting would need the secret.
  if (holdsRedacted(plain, sensitive) && !(await effectSucceeded(run.pool, key))) {
    throw cannotActOnRedacted(tool);
  }
  const redacted = redact(plain, sensitive);
  const fingerprint = payloadFingerprint(redacted);
  const entry = (kind: string, data: Record<string, JsonValue>) => ({
    kind,
    actor: `worker:${run.worker}`,
    taskId: run.taskId,
    key,
    data: { tool: tool.name, step: stepSeq, attempt: run.attempt, ...data },
  });

  const claimed = (answer: ClaimAnswer) => {
    if (!answer.leased) throw new LeaseLostError(`lost the lease on task ${run.taskId}`);
    return answer.inserted;
  };
  const claimItem = {
    key,
    taskId: run.taskId,
    stepSeq,
    tool: tool.name,
    intent,
    args: redacted,
    fingerprint,
    leaseMs: run.effectLeaseMs,
  };
  // A first claim (the common case) is one statement, shared with the worker's other attempts
  // claiming now: the key and its effect.started entry on the head this attempt knows. A gated
  // tool checks its approval first; a key claimed before is resolved in a transaction that can
  // read and lock what is there.
  let claim: Claim | undefined;
  if (!tool.requiresApproval) {
    const answer = await run.effects.claim({
      ...claimItem,
      head: run.head,
      entry: entry("effect.started", { args: redacted, fingerprint }),
    });
    if (claimed(answer)) claim = { action: "execute" };
  }
  const viaTransaction = claim === undefined;
  claim ??= await withTransaction(run.pool, async (client): Promise<Claim> => {
    if (tool.requiresApproval?.(args) && !(await approvedOrDone(client, key, fingerprint))) {
      return { action: "park" };
    }
    const { rows } = await client.query<{ leased: number; inserted: number }>({
      name: "runtime_claim_effect",
      text: `with ${CLAIM_EFFECTS_CTES} select ${CLAIM_EFFECT_SELECT}`,
      values: claimValues([claimItem], run.worker),
    });
    const row = rows[0];
    if (claimed({ leased: (row?.leased ?? 0) > 0, inserted: (row?.inserted ?? 0) > 0 })) {
      await appendThrough(
        client,
        run.head,
        entry("effect.started", { args: redacted, fingerprint }),
      );
      return { action: "execute" };
    }
    return resolveExisting(client, run, tool, key, redacted, fingerprint, entry);
  });
  // Whatever that transaction appended moved the head past what we know: read it afresh next
  // time rather than be refused (a batch would be refused as a whole).
  if (viaTransaction) forgetHead(run);

  if (claim.action === "dead") throw claim.error;
  if (claim.action === "park") {
    throw new ApprovalNeededError({
      key,
      fingerprint,
      tool: tool.name,
      args: redacted,
      step: stepSeq,
      money: movesMoney(tool.money),
    });
  }
  if (claim.action === "return") {
    trace?.span.setAttribute(ATTR.effectOutcome, "deduplicated");
    await recordStep(run, stepSeq, tool.name, key, claim.result);
    return claim.result;
  }
  if (claim.action === "reconcile" && tool.reconcile) {
    let outcome: ReconcileOutcome<JsonValue>;
    try {
      outcome = await tool.reconcile(key, args, {
        signal: run.signal,
        traceHeaders: trace?.headers ?? (() => ({})),
      });
    } catch (err) {
      await releaseUnknown(
        run,
        key,
        entry("effect.reconcile_failed", { error: serializeError(err) }),
      );
      throw err;
    }
    if (outcome.happened) {
      trace?.span.setAttribute(ATTR.effectOutcome, "reconciled");
      return recordSuccess(run, tool, key, stepSeq, outcome.result, entry, { reconciled: true });
    }
  }
  // The call really goes to the provider now: take the tool's rate-limit slot, or wait for one
  // (then claim again, with the slot already taken).
  const slot = slotTaken
    ? { slotAt: slotTaken }
    : await takeSlotOrWait(run, tool, args, key, entry);
  if (slot.reclaim) return performEffect(run, tool, rawArgs, stepSeq, trace, slot.slotAt);
  trace?.span.setAttribute(ATTR.effectOutcome, "executed");
  return execute(run, tool, args, key, stepSeq, entry, slot, trace);
}

/** After an append through the locked path: the next known-head statement reads the head. */
function forgetHead(run: EffectRunner): void {
  run.head.current = undefined;
}

function cannotActOnRedacted(tool: Tool): NonRetryableError {
  return new NonRetryableError(
    `${tool.name}: its arguments come from a journaled model decision whose sensitive fields were redacted, and this effect has not happened yet; replay from the model step to ask the model again`,
  );
}

async function effectSucceeded(pool: pg.Pool, key: string): Promise<boolean> {
  const { rows } = await pool.query({
    name: "runtime_effect_succeeded_check",
    text: "select 1 from effects where key = $1 and status = 'succeeded'",
    values: [key],
  });
  return rows.length === 1;
}

type EntryFn = (
  kind: string,
  data: Record<string, JsonValue>,
) => { kind: string; actor: string; taskId: string; key: string; data: JsonValue };

/**
 * A gated effect may act when a reviewer approved this key with this exact payload, or when it
 * already happened (then it is only deduplicated). The first use is stamped on the approval.
 */
async function approvedOrDone(
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
async function resolveExisting(
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
                  (extract(epoch from now() - created_at) * 1000)::bigint as age_ms
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
      await takeOverEffect(client, run, key);
      await appendThrough(
        client,
        run.head,
        entry("effect.started", { args: redacted, fingerprint, retry: true }),
      );
      return { action: "execute" };
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
        }),
      );
      if (next.action === "dead-letter") {
        return {
          action: "dead",
          error: new DeadLetterError(
            "outcome_unknown",
            `${tool.name}: an earlier attempt started this effect and never recorded a result; a reviewer must confirm whether it happened`,
          ),
        };
      }
      await takeOverEffect(client, run, key);
      return next.action === "reconcile" ? { action: "reconcile" } : { action: "execute" };
  }
}

async function takeOverEffect(client: SqlClient, run: EffectRunner, key: string): Promise<void> {
  await client.query({
    name: "runtime_take_over_effect",
    text: `update effects set status = 'started', lease_owner = $2, error = null,
             lease_expires_at = now() + $3 * interval '1 millisecond', attempts = attempts + 1, updated_at = now()
           where key = $1`,
    values: [key, run.worker, run.effectLeaseMs],
  });
}

/**
 * The provider could not be asked: end our claim, outcome still unknown, so the next attempt
 * asks again. Left claimed, the heartbeat would renew it and every later attempt would wait
 * on it as if it were in flight, without end and without spending an attempt.
 */
async function releaseUnknown(
  run: EffectRunner,
  key: string,
  ledgerEntry: ReturnType<EntryFn>,
): Promise<void> {
  await withTransaction(run.pool, async (client) => {
    await client.query({
      name: "runtime_effect_release_unknown",
      text: `update effects set lease_expires_at = now(), lease_owner = null, updated_at = now()
             where key = $1 and status = 'started' and lease_owner = $2`,
      values: [key, run.worker],
    });
    await appendThrough(client, run.head, ledgerEntry);
  });
}

async function execute(
  run: EffectRunner,
  tool: Tool,
  args: unknown,
  key: string,
  stepSeq: number,
  entry: EntryFn,
  extra: Record<string, JsonValue>,
  trace: ToolTrace | undefined,
): Promise<JsonValue> {
  let result: JsonValue;
  faultPoint("effect.started");
  try {
    result = toJsonValue(
      await tool.execute(args, {
        idempotencyKey: key,
        signal: run.signal,
        traceHeaders: trace?.headers ?? (() => ({})),
      }),
    );
    faultPoint("effect.returned");
  } catch (err) {
    if (err instanceof RateLimitedError) {
      const suspend = await providerRateLimited(run, tool, key, err, entry);
      if (suspend) throw suspend;
    }
    const performed = err instanceof EffectNotPerformedError ? "no" : "unknown";
    // Through a database outage too: left claimed, the heartbeat would renew it forever.
    await retryOnConnectionError(() =>
      withTransaction(run.pool, async (client) => {
        // Not performed: the key may act again. Unknown: end the claim now, so the next attempt
        // takes the outcome-unknown path (reconcile, resend, or a human) instead of waiting.
        const ended = await client.query({
          name: "runtime_effect_failed",
          text: `update effects set status = case when $2 then 'failed' else status end, error = $3,
                 lease_expires_at = now(), lease_owner = null, updated_at = now()
               where key = $1 and status = 'started' and lease_owner = $4`,
          values: [key, performed === "no", JSON.stringify(serializeError(err)), run.worker],
        });
        // Zero rows: an earlier try committed (its answer was lost) or the claim moved on.
        if (ended.rowCount === 0) return;
        await appendThrough(
          client,
          run.head,
          entry("effect.failed", { performed, error: serializeError(err) }),
        );
      }),
    );
    if (err instanceof EffectNotPerformedError && !err.retryable) {
      throw new NonRetryableError(`${tool.name}: ${err.message}`, { cause: err });
    }
    throw err;
  }
  return recordSuccess(run, tool, key, stepSeq, result, entry, extra);
}

async function recordSuccess(
  run: EffectRunner,
  tool: Tool,
  key: string,
  stepSeq: number,
  result: JsonValue,
  entry: EntryFn,
  extra: Record<string, JsonValue>,
): Promise<JsonValue> {
  const sensitive = tool.sensitive ?? [];
  // One statement, shared with the worker's other attempts recording now: the result, its
  // effect.succeeded entry, and the step under our lease.
  const item: EffectResult = {
    key,
    taskId: run.taskId,
    stepSeq,
    tool: tool.name,
    attempt: run.attempt,
    result,
    inDoubt: false,
    head: run.head,
    entry: entry("effect.succeeded", { result: redact(result, sensitive), ...extra }),
  };
  run.deferred.items.push(item);
  // Retried through a database outage: the effect happened, and left `started` under our claim
  // the heartbeat would keep it "in flight" for every later attempt. A try whose COMMIT answer
  // was lost finds the effect already succeeded and does not append its entry twice.
  if (!run.deferred.open && !(await recordDeferred(run))) {
    throw new LeaseLostError(`lost the lease on task ${run.taskId}`);
  }
  return result;
}

async function recordStep(
  run: EffectRunner,
  stepSeq: number,
  toolName: string,
  key: string,
  result: JsonValue,
): Promise<void> {
  const ok = await withTransaction(run.pool, (client) =>
    journalStep(client, run.worker, run.taskId, run.attempt, {
      seq: stepSeq,
      kind: "tool",
      name: toolName,
      result,
      effectKey: key,
    }),
  );
  if (!ok) throw new LeaseLostError(`lost the lease on task ${run.taskId}`);
}
