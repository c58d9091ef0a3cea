// An effect's result, after the claim: the tool is called, and its success is recorded with the
// task's next statement, or its failure (or a release, outcome still unknown) at once.
import { withTransaction } from "../../db/client";
import { retryOnConnectionError } from "../../db/retry";
import { type JsonValue, toJsonValue } from "../../lib/domain/json";
import { redact } from "../../lib/domain/redact";
import type { Tool } from "../../lib/sdk/define";
import { EffectNotPerformedError, NonRetryableError, RateLimitedError } from "../../lib/sdk/errors";
import { faultPoint } from "../../lib/server/fault-points";
import { appendThrough } from "../../lib/server/ledger/append-known-head";
import type { EffectResult } from "./effect-batch";
import { providerRateLimited } from "./effect-rate-limit";
import { type EffectRunner, type EntryFn, recordDeferred } from "./effect-runner";
import { LeaseLostError, serializeError } from "./errors";
import { journalStep } from "./journal";
import type { ToolTrace } from "./tracing";

/**
 * The provider could not be asked: end our claim, outcome still unknown, so the next attempt
 * asks again. Left claimed, the heartbeat would renew it and every later attempt would wait
 * on it as if it were in flight, without end and without spending an attempt.
 */
export async function releaseUnknown(
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

export async function execute(
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

export async function recordSuccess(
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

export async function recordStep(
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
