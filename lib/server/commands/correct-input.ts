// fix the input and replay: a reviewer corrects a dead task's input (it must pass the agent's
// published schema, the same check enqueueing makes) and the task replays from a chosen step
// with it. The correction is a `task.input_corrected` ledger entry with before, after and who;
// the task's `task.enqueued` entry keeps the original. Effects whose intent keeps its value keep
// their key and deduplicate; effects whose intent changes get a new key and act. When money may
// act, the first reviewer's correction is a request that a second, different reviewer confirms
// with the same corrected input (two-person.ts).
import type pg from "pg";
import type { Principal } from "../../domain/access";
import { type CommandResult, invalid } from "../../domain/command-result";
import { canonicalJson, type JsonValue, JsonValueError, toJsonValue } from "../../domain/json";
import { stepOutOfRange } from "../../domain/replay-plan";
import { appendLedger, taskStream } from "../ledger/append-ledger";
import { type CorrectionPreview, correctionPreview, requestNote } from "../review/correction";
import { lastStepOf } from "../review/preview";
import { reviewSpan } from "./review-span";
import {
  lockTaskFor,
  notifyWorkers,
  requeueReviewed,
  taskTransaction,
  theRow,
  truncateJournal,
} from "./task-guard";
import { checkAgentInput } from "./task-input";
import { type ReviewOutcome, twoPersonGate } from "./two-person";

export type CorrectInput = {
  taskId: string;
  version: number;
  /** The whole corrected input, as the agent's schema takes it. */
  input: unknown;
  /** Where the replay starts; step 1 (the default) runs the whole task again. */
  fromStep?: number;
  note?: string;
};

export type CorrectOutcome = ReviewOutcome & { preview: CorrectionPreview };

export const correctInput = reviewSpan("correct_input", correctInputUntraced);

async function correctInputUntraced(
  pool: pg.Pool,
  principal: Principal,
  input: CorrectInput,
): Promise<CommandResult<CorrectOutcome>> {
  const fromStep = input.fromStep ?? 1;
  if (!Number.isInteger(fromStep) || fromStep < 1) {
    return invalid("fromStep must be a whole number from 1");
  }
  let after: JsonValue;
  try {
    after = toJsonValue(input.input, "input");
  } catch (error) {
    if (error instanceof JsonValueError)
      return invalid(`the input cannot be stored: ${error.message}`);
    throw error;
  }
  const { actor } = principal;
  return taskTransaction(pool, async (client): Promise<CommandResult<CorrectOutcome>> => {
    const locked = await lockTaskFor(client, principal, input.taskId, input.version, "correct");
    if ("error" in locked) return locked.error;
    const { task } = locked;
    const { rows } = await client.query<{ input: JsonValue }>(
      "select input from tasks where id = $1",
      [task.id],
    );
    const before = theRow(rows, `task ${task.id}`).input;
    if (canonicalJson(before) === canonicalJson(after)) {
      return invalid("the corrected input is the same as the task's input: change something first");
    }
    const checked = await checkAgentInput(client, task.agent, after);
    if (!checked.ok) return invalid(checked.message);
    const outside = stepOutOfRange(fromStep, await lastStepOf(client, task.id));
    if (outside) return outside;

    const preview = await correctionPreview(client, { ...task, input: before }, after, fromStep);
    const recorded = {
      before,
      after,
      changes: preview.correction.changes,
      fromStep,
      note: input.note ?? null,
    };
    const gate = await twoPersonGate(client, task, "replay", fromStep, preview, actor, {
      input: after,
      data: recorded,
    });
    if (!gate.run) {
      return gate.result.ok
        ? { ...gate.result, value: { ...gate.result.value, preview } }
        : gate.result;
    }

    theRow(
      (
        await client.query(
          "update tasks set input = $3, concurrency_key = null where id = $1 and version = $2 returning id",
          [task.id, task.version, JSON.stringify(after)],
        )
      ).rows,
      `task ${task.id}`,
    );
    await truncateJournal(client, task.id, fromStep);
    // A parked request was for the old input; the re-run asks again if it needs one.
    await client.query(
      `update approvals set status = 'rejected', decided_by = $2, decided_at = now(), reason = 'superseded by an input correction'
       where task_id = $1 and status = 'pending'`,
      [task.id, actor],
    );
    const version = await requeueReviewed(client, task, true);
    const twoPerson = gate.confirms ? { twoPerson: { ...gate.confirms, confirmedBy: actor } } : {};
    // The why is the proposer's (the confirmer's button sends none): from their request entry.
    const note =
      input.note ??
      (gate.confirms ? await requestNote(client, task.id, gate.confirms.requestId) : null);
    // The entry's actor is whose action made the correction take effect: the confirmer when
    // two people were needed (the proposer's own act is their review.requested entry, which
    // carries the same correction), otherwise the one reviewer. Both names are in its data.
    await appendLedger(client, taskStream(task.id), [
      {
        kind: "task.input_corrected",
        actor,
        taskId: task.id,
        data: {
          ...recorded,
          note,
          proposedBy: gate.confirms?.requestedBy ?? actor,
          confirmedBy: gate.confirms ? actor : null,
          ...twoPerson,
        },
      },
      {
        kind: "replay.requested",
        actor,
        taskId: task.id,
        data: {
          from: task.status,
          fromStep,
          rerun: preview.rerun,
          effects: preview.effects,
          keys: preview.correction.effects,
          correctedInput: true,
          ...twoPerson,
        },
      },
    ]);
    await notifyWorkers(client, task.id);
    return {
      ok: true,
      value: { id: task.id, status: "queued" as const, version, waitingFor: null, preview },
    };
  });
}
