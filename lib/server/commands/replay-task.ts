// replay from step N: steps before N keep their journaled results, steps from N run again, and
// an effect whose key already succeeded returns its stored result instead of acting. The
// preview (lib/server/queries/preview-replay) is the one the reviewer saw, recorded in the ledger.
// A replay that can reach a `money` effect needs a second, different reviewer (two-person.ts).
import type pg from "pg";
import type { Principal } from "../../domain/access";
import { type CommandResult, invalid } from "../../domain/command-result";
import { type ReviewPreview, stepOutOfRange } from "../../domain/replay-plan";
import { appendLedger, taskStream } from "../ledger/append-ledger";
import { lastStepOf, reviewPreview } from "../review/preview";
import { bulkField } from "./bulk-principal";
import { reviewSpan } from "./review-span";
import {
  lockTaskFor,
  notifyWorkers,
  requeueReviewed,
  taskTransaction,
  truncateJournal,
} from "./task-guard";
import { type ReviewOutcome, twoPersonGate } from "./two-person";

export type ReplayInput = {
  taskId: string;
  version: number;
  fromStep: number;
  /** Set by the bulk runner: the bulk action this replay is part of. */
  bulkId?: string;
};

export const replayTask = reviewSpan("replay", replayTaskUntraced);

async function replayTaskUntraced(
  pool: pg.Pool,
  principal: Principal,
  input: ReplayInput,
): Promise<CommandResult<ReviewOutcome & { preview: ReviewPreview }>> {
  if (!Number.isInteger(input.fromStep) || input.fromStep < 1) {
    return invalid("fromStep must be a whole number from 1");
  }
  const { actor } = principal;
  return taskTransaction(pool, async (client) => {
    const locked = await lockTaskFor(client, principal, input.taskId, input.version, "replay");
    if ("error" in locked) return locked.error;
    const { task } = locked;
    const outside = stepOutOfRange(input.fromStep, await lastStepOf(client, task.id));
    if (outside) return outside;
    const preview = await reviewPreview(client, task, "replay", input.fromStep);
    const gate = await twoPersonGate(
      client,
      task,
      "replay",
      input.fromStep,
      preview,
      actor,
      undefined,
      input.bulkId,
    );
    if (!gate.run) {
      return gate.result.ok
        ? { ...gate.result, value: { ...gate.result.value, preview } }
        : gate.result;
    }
    await truncateJournal(client, task.id, input.fromStep);
    // A parked request may no longer match what the re-run asks for; it asks again if needed.
    await client.query(
      `update approvals set status = 'rejected', decided_by = $2, decided_at = now(), reason = 'superseded by a replay'
       where task_id = $1 and status = 'pending'`,
      [task.id, actor],
    );
    const version = await requeueReviewed(client, task, true);
    await appendLedger(client, taskStream(task.id), {
      kind: "replay.requested",
      actor,
      taskId: task.id,
      data: {
        from: task.status,
        fromStep: input.fromStep,
        rerun: preview.rerun,
        effects: preview.effects,
        ...(preview.loop ? { loop: preview.loop.note } : {}),
        ...(gate.confirms ? { twoPerson: { ...gate.confirms, confirmedBy: actor } } : {}),
        ...bulkField(input.bulkId),
      },
    });
    await notifyWorkers(client, task.id);
    return {
      ok: true,
      value: {
        id: task.id,
        status: "queued" as const,
        version,
        waitingFor: null,
        preview,
      },
    };
  });
}
