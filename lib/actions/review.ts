"use server";
// The review buttons: approve, reject, resume, replay (with its preview), withdraw a two-person
// request, resolve an unknown outcome, cancel. Each goes through the one chain (session → scope →
// zod → command), acts on the task version the page rendered, and records the signed-in person
// as the ledger actor. A 409 tells the loser who changed the task and how.
import { z } from "zod";
import { defineAction, fromCommand } from "../auth/guard";
import { principalOf } from "../domain/access";
import type { JsonValue } from "../domain/json";
import { approveTask } from "../server/commands/approve-task";
import { cancelTask } from "../server/commands/cancel-task";
import { rejectTask } from "../server/commands/reject-task";
import { replayTask } from "../server/commands/replay-task";
import { resolveOutcome } from "../server/commands/resolve-outcome";
import { withdrawReviewRequest } from "../server/commands/two-person";
import { getPool } from "../server/db";
import { previewReview } from "../server/queries/get-review-state";
import {
  blankAsAbsent,
  effectKey,
  fromStep,
  jsonText,
  note,
  optionalText,
  taskId,
  version,
} from "./review-fields";

/** Largest "it happened" result a reviewer may paste, in bytes of canonical JSON. */
const MAX_RESULT_BYTES = 16 * 1024;

export const approveTaskAction = defineAction({
  name: "approveTaskAction",
  scope: "approvals:decide",
  input: z.object({ taskId, version, note }),
  run: async (input, viewer) =>
    fromCommand(await approveTask(getPool(), principalOf(viewer), { ...input, action: "approve" })),
});

/** Approve a dead task: it resumes from its last completed step with a fresh attempt budget. */
export const resumeTaskAction = defineAction({
  name: "resumeTaskAction",
  scope: "deadLetters:review",
  input: z.object({ taskId, version, note }),
  run: async (input, viewer) =>
    fromCommand(await approveTask(getPool(), principalOf(viewer), { ...input, action: "resume" })),
});

export const rejectTaskAction = defineAction({
  name: "rejectTaskAction",
  scope: "approvals:decide",
  input: z.object({
    taskId,
    version,
    reason: z
      .string({ message: "is required" })
      .trim()
      .min(1, "say why the task is rejected")
      .max(1000, "must be at most 1000 characters"),
  }),
  // Rejecting a dead task is dead-letter triage too: the command asks for that scope as well.
  run: async (input, viewer) =>
    fromCommand(await rejectTask(getPool(), principalOf(viewer), input)),
});

export const replayTaskAction = defineAction({
  name: "replayTaskAction",
  scope: "deadLetters:review",
  input: z.object({ taskId, version, fromStep }),
  run: async (input, viewer) =>
    fromCommand(await replayTask(getPool(), principalOf(viewer), input)),
});

/** Read-only: what a replay from `fromStep` would do, with money effects marked. */
export const previewReplayAction = defineAction({
  name: "previewReplayAction",
  scope: "deadLetters:review",
  input: z.object({ taskId, fromStep }),
  run: async (input, viewer) =>
    fromCommand(await previewReview(getPool(), viewer, input.taskId, input.fromStep)),
});

export const withdrawReviewRequestAction = defineAction({
  name: "withdrawReviewRequestAction",
  scope: "deadLetters:review",
  input: z.object({
    taskId,
    requestId: z.coerce.number({ message: "must be a number" }).int().min(1, "must be at least 1"),
  }),
  run: async (input, viewer) =>
    fromCommand(await withdrawReviewRequest(getPool(), principalOf(viewer), input)),
});

/** A pasted result: JSON text that the ledger can store, at most MAX_RESULT_BYTES. */
const resultJson = z.preprocess(blankAsAbsent, jsonText(MAX_RESULT_BYTES, "result").optional());

export const resolveOutcomeAction = defineAction({
  name: "resolveOutcomeAction",
  scope: "outcomes:resolve",
  input: z
    .object({
      taskId,
      version,
      key: effectKey,
      happened: z.enum(["yes", "no"], { message: "say whether it happened: yes or no" }),
      providerId: optionalText(200),
      result: resultJson,
    })
    .superRefine((v, ctx) => {
      if (v.happened === "yes" && v.providerId === undefined && v.result === undefined) {
        ctx.addIssue({
          code: "custom",
          path: ["providerId"],
          message: "give the provider's id or its result, so the ledger records what happened",
        });
      }
      if (
        v.providerId !== undefined &&
        v.result !== undefined &&
        (typeof v.result !== "object" || v.result === null || Array.isArray(v.result))
      ) {
        ctx.addIssue({
          code: "custom",
          path: ["result"],
          message: "must be a JSON object when a provider id is given too",
        });
      }
    }),
  run: async ({ happened, providerId, result, ...input }, viewer) => {
    const principal = principalOf(viewer);
    if (happened === "no") {
      return fromCommand(await resolveOutcome(getPool(), principal, { ...input, happened: false }));
    }
    const recorded: JsonValue =
      result === undefined
        ? { providerId: providerId ?? null }
        : providerId === undefined
          ? result
          : { ...(result as Record<string, JsonValue>), providerId };
    return fromCommand(
      await resolveOutcome(getPool(), principal, { ...input, happened: true, result: recorded }),
    );
  },
});

export const cancelTaskAction = defineAction({
  name: "cancelTaskAction",
  scope: "tasks:cancel",
  input: z.object({
    taskId,
    version,
    reason: optionalText(500),
  }),
  run: async (input, viewer) =>
    fromCommand(await cancelTask(getPool(), principalOf(viewer), input)),
});
