// The review commands over HTTP: approve, reject, replay, fix the input of and cancel a task;
// resolve an effect's unknown outcome. The same commands as the dashboard's buttons, with the same rules: each acts
// on the task version the caller read (a stale one is 409 with who changed it), the caller is
// the ledger actor, and money takes two different reviewers.
import { z } from "zod";
import { principalOf } from "../../domain/access";
import type { CommandResult } from "../../domain/command-result";
import { type JsonValue, toJsonValue } from "../../domain/json";
import type { TaskStatus } from "../../domain/task-states";
import { approveTask } from "../../server/commands/approve-task";
import { cancelTask } from "../../server/commands/cancel-task";
import { correctInput } from "../../server/commands/correct-input";
import { rejectTask } from "../../server/commands/reject-task";
import { replayTask } from "../../server/commands/replay-task";
import { resolveOutcome } from "../../server/commands/resolve-outcome";
import type { ReviewOutcome } from "../../server/commands/two-person";
import { getPool } from "../../server/db";
import { BODY_PROBLEMS, defineEndpoint } from "../endpoint";
import { ApiProblem, type ProblemType } from "../problems";
import { effectKeyParam, reviewResultSchema, taskIdParam, versionField } from "./schemas";

/** The first journal step a replay (or a corrected replay) runs again. */
const fromStepField = z
  .number({ message: "must be a number: the first step to run again" })
  .int("must be a whole number")
  .min(1, "must be at least 1")
  .max(100_000, "is past any journal");

type ReviewResult = z.infer<typeof reviewResultSchema>;

const REVIEW_PROBLEMS: ProblemType[] = [
  ...BODY_PROBLEMS,
  "not-found",
  "version-conflict",
  "state-conflict",
];

/** A command's refusal as a problem; its success as the task's new state. */
function answer(
  result: CommandResult<ReviewOutcome | { id: string; status: TaskStatus; version: number }>,
): ReviewResult {
  if (!result.ok) {
    if (result.code === "not_found") throw new ApiProblem("not-found", result.message);
    if (result.code === "invalid") throw new ApiProblem("invalid-request", result.message);
    if (result.code === "forbidden") throw new ApiProblem("forbidden", result.message);
    throw new ApiProblem(result.stale ? "version-conflict" : "state-conflict", result.message);
  }
  const { id, status, version } = result.value;
  return {
    id,
    status,
    version,
    waitingFor: "waitingFor" in result.value ? result.value.waitingFor : null,
  };
}

const text = (max: number) => z.string().trim().max(max, `must be at most ${max} characters`);

export const approveEndpoint = defineEndpoint({
  method: "POST",
  path: "/tasks/{id}/approve",
  operationId: "approveTask",
  tag: "Review",
  summary: "Approve: a gated effect may run, or a dead task resumes",
  description:
    "On a task awaiting approval, the pending effect may run with exactly the arguments shown (`approvals:decide`). On a dead task it resumes from the first step not completed with a fresh attempt budget (`deadLetters:review` as well). When the effect moves money the first reviewer's yes is recorded and `waitingFor` says a second, different reviewer must approve too.",
  scope: "approvals:decide",
  params: taskIdParam,
  body: z.object({ version: versionField, note: text(1000).optional() }).strict(),
  response: reviewResultSchema,
  problems: REVIEW_PROBLEMS,
  handle: async ({ params, body, viewer }) => {
    // The task's state decides: approve a parked effect, or resume a dead task (which needs
    // deadLetters:review as well; the command asks).
    return answer(
      await approveTask(getPool(), principalOf(viewer), {
        taskId: params.id,
        version: body.version,
        note: body.note,
      }),
    );
  },
});

export const rejectEndpoint = defineEndpoint({
  method: "POST",
  path: "/tasks/{id}/reject",
  operationId: "rejectTask",
  tag: "Review",
  summary: "Reject: the task ends as rejected with your reason; nothing more is done",
  description:
    "A task awaiting approval needs `approvals:decide`; a dead one `deadLetters:review` as well.",
  scope: "approvals:decide",
  params: taskIdParam,
  body: z
    .object({
      version: versionField,
      reason: text(1000).min(1, "say why the task is rejected"),
    })
    .strict(),
  response: reviewResultSchema,
  problems: REVIEW_PROBLEMS,
  handle: async ({ params, body, viewer }) => {
    return answer(
      await rejectTask(getPool(), principalOf(viewer), {
        taskId: params.id,
        version: body.version,
        reason: body.reason,
      }),
    );
  },
});

export const replayEndpoint = defineEndpoint({
  method: "POST",
  path: "/tasks/{id}/replay",
  operationId: "replayTask",
  tag: "Review",
  summary: "Replay from a step: earlier steps keep their results, effects already done deduplicate",
  description:
    "Steps before `fromStep` keep their journaled results; steps from it run again; an effect whose key already succeeded returns its stored result instead of acting. When the replay may reach an effect that moves money, the first call records a request and `waitingFor` says a second, different reviewer must make the same call on the same version.",
  scope: "deadLetters:review",
  params: taskIdParam,
  body: z
    .object({
      version: versionField,
      fromStep: fromStepField,
    })
    .strict(),
  response: reviewResultSchema,
  problems: REVIEW_PROBLEMS,
  handle: async ({ params, body, viewer }) =>
    answer(
      await replayTask(getPool(), principalOf(viewer), {
        taskId: params.id,
        version: body.version,
        fromStep: body.fromStep,
      }),
    ),
});

export const correctEndpoint = defineEndpoint({
  method: "POST",
  path: "/tasks/{id}/correct",
  operationId: "correctTask",
  tag: "Review",
  summary: "Fix the input and replay: the corrected input must pass the agent's schema",
  description:
    "For a dead task (a bad input, say). `input` is the whole corrected input; it must pass the agent's published schema and differ from the task's input. The correction is recorded as a `task.input_corrected` ledger entry with before, after and who (the original stays in `task.enqueued`), and the task replays from `fromStep` (default 1) with it: effects whose intent did not change keep their keys and deduplicate if they succeeded, effects whose intent changed get new keys and act. When the replay may reach an effect that moves money, the first call records a request and `waitingFor` says a second, different reviewer must make the same call (the same corrected input) on the same version.",
  scope: "deadLetters:review",
  params: taskIdParam,
  body: z
    .object({
      version: versionField,
      input: z.json({ message: "must be JSON: the whole corrected input" }),
      fromStep: fromStepField.optional(),
      note: text(1000).optional(),
    })
    .strict(),
  response: reviewResultSchema,
  problems: REVIEW_PROBLEMS,
  handle: async ({ params, body, viewer }) =>
    answer(
      await correctInput(getPool(), principalOf(viewer), {
        taskId: params.id,
        version: body.version,
        input: body.input,
        fromStep: body.fromStep,
        note: body.note,
      }),
    ),
});

export const cancelEndpoint = defineEndpoint({
  method: "POST",
  path: "/tasks/{id}/cancel",
  operationId: "cancelTask",
  tag: "Review",
  summary: "Cancel a task that has not finished",
  scope: "tasks:cancel",
  params: taskIdParam,
  body: z.object({ version: versionField, reason: text(500).optional() }).strict(),
  response: reviewResultSchema,
  problems: REVIEW_PROBLEMS,
  handle: async ({ params, body, viewer }) =>
    answer(
      await cancelTask(getPool(), principalOf(viewer), {
        taskId: params.id,
        version: body.version,
        reason: body.reason,
      }),
    ),
});

export const resolveEndpoint = defineEndpoint({
  method: "POST",
  path: "/effects/{key}/resolve",
  operationId: "resolveEffect",
  tag: "Review",
  summary: "Resolve an unknown outcome: it happened (with the provider's result) or it did not",
  description:
    "For an effect that started but whose result was never recorded (the task is dead with `outcome_unknown`). `happened: true` records `result` so a re-run returns it instead of acting; `happened: false` lets the effect act once more with the same key. The task then resumes — except after `happened: false` on an effect that moves money, where it stays dead and resuming takes two reviewers.",
  scope: "outcomes:resolve",
  params: effectKeyParam,
  body: z.discriminatedUnion(
    "happened",
    [
      z
        .object({
          taskId: taskIdParam.shape.id,
          version: versionField,
          happened: z.literal(true),
          result: z.json({ message: "must be JSON: what the provider says happened" }),
        })
        .strict(),
      z
        .object({ taskId: taskIdParam.shape.id, version: versionField, happened: z.literal(false) })
        .strict(),
    ],
    { message: "happened must be true or false" },
  ),
  response: reviewResultSchema,
  problems: REVIEW_PROBLEMS,
  handle: async ({ params, body, viewer }) => {
    const principal = principalOf(viewer);
    const base = { taskId: body.taskId, version: body.version, key: params.key };
    return answer(
      body.happened
        ? await resolveOutcome(getPool(), principal, {
            ...base,
            happened: true,
            result: toJsonValue(body.result, "result") as JsonValue,
          })
        : await resolveOutcome(getPool(), principal, { ...base, happened: false }),
    );
  },
});
