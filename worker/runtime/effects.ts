// performEffect: at most one real action per intent. Two commits carry the guarantee: the key
// is claimed before acting, and the result is recorded (with effect.succeeded, which carries the
// claim, and the step) after. Everything in between is what "outcome unknown" means. The claim
// writes no entry: the entry that ends it (its result, failure or release) records it, or, if
// its worker dies first, the effect.outcome_unknown of the attempt that finds it lapsed
// (lib/domain/effect-start.ts). The result's commit rides the task's next statement: it is
// recorded before the agent's next step starts (context.ts), or with the task's success when
// the effect was its last (completion-batch.ts), so a one-effect task makes one statement
// fewer. A crash before that statement leaves the effect started without a result: outcome
// unknown, as a crash just before an immediate record would.
import type pg from "pg";
import { withTransaction } from "../../db/client";
import {
  CLAIM_ENDING_KINDS,
  EFFECT_START_KEY,
  type EffectStartData,
  effectStartData,
} from "../../lib/domain/effect-start";
import { deriveEffectKey, payloadFingerprint } from "../../lib/domain/hash";
import { type JsonValue, toJsonValue } from "../../lib/domain/json";
import { movesMoney } from "../../lib/domain/money";
import { holdsRedacted, redact } from "../../lib/domain/redact";
import type { ReconcileOutcome, Tool } from "../../lib/sdk/define";
import { NonRetryableError } from "../../lib/sdk/errors";
import { type ClaimAnswer, claimEffect } from "./effect-batch";
import { approvedOrDone, type Claim, resolveExisting, type TakenOver } from "./effect-claim";
import { takeSlotOrWait } from "./effect-rate-limit";
import { execute, recordStep, recordSuccess, releaseUnknown } from "./effect-result";
import type { EffectRunner } from "./effect-runner";
import { ApprovalNeededError, LeaseLostError, serializeError } from "./errors";
import { ATTR, type ToolTrace } from "./tracing";

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
  // This attempt's claim to act, once made: the entry that ends it carries it. Only one of
  // those commits (each is guarded by the claim still being ours, or the result not recorded).
  let start: EffectStartData | undefined;
  const entry = (kind: string, data: Record<string, JsonValue>) => ({
    kind,
    actor: `worker:${run.worker}`,
    taskId: run.taskId,
    key,
    data: {
      tool: tool.name,
      step: stepSeq,
      attempt: run.attempt,
      ...data,
      ...(start && CLAIM_ENDING_KINDS.has(kind) ? { [EFFECT_START_KEY]: start } : {}),
    },
  });
  const claimedAt = (at: Date, after?: TakenOver["after"]) => {
    start = effectStartData({ at, args: redacted, fingerprint, after });
  };

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
  // A first claim (the common case) is one statement that writes no entry, shared with the
  // worker's other attempts claiming now. A gated tool checks its approval first; a key claimed
  // before is resolved in a transaction that can read and lock what is there.
  let claim: Claim | undefined;
  if (!tool.requiresApproval) {
    const answer = await run.effects.claim(claimItem);
    if (claimed(answer)) {
      claimedAt(answer.at);
      claim = { action: "execute" };
    }
  }
  const viaTransaction = claim === undefined;
  claim ??= await withTransaction(run.pool, async (client): Promise<Claim> => {
    if (tool.requiresApproval?.(args) && !(await approvedOrDone(client, key, fingerprint))) {
      return { action: "park" };
    }
    const answer = await claimEffect(client, claimItem, run.worker);
    if (claimed(answer)) {
      claimedAt(answer.at);
      return { action: "execute" };
    }
    const existing = await resolveExisting(client, run, tool, key, redacted, fingerprint, entry);
    if (existing.action === "execute" && existing.takenOver) {
      claimedAt(existing.takenOver.at, existing.takenOver.after);
    }
    return existing;
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
    // It did not happen: this claim acts after all.
    claimedAt(claim.takenOver.at, claim.takenOver.after);
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
