"use server";
// Fix the input and replay: the reviewer's corrected input arrives as JSON text, is checked
// against the agent's published schema (enqueueing's own check) for the preview, and the
// command checks it again under the task's lock before it records the correction and replays.
import { z } from "zod";
import { type ActionResult, defineAction, fromCommand } from "../auth/guard";
import { principalOf } from "../domain/access";
import { invalid } from "../domain/command-result";
import { canonicalJson, type JsonValue, toJsonValue } from "../domain/json";
import { correctInput } from "../server/commands/correct-input";
import { checkAgentInput } from "../server/commands/enqueue-task";
import { getPool } from "../server/db";
import { previewCorrection } from "../server/queries/get-review-state";
import type { CorrectionPreview } from "../server/review/correction";

/** Largest corrected input, in bytes of canonical JSON (a task input, not a document). */
const MAX_INPUT_BYTES = 64 * 1024;

const taskId = z
  .string({ message: "is required" })
  .trim()
  .toLowerCase()
  .pipe(z.uuid({ message: "must be a task id (a UUID)" }));

const version = z.coerce
  .number({ message: "must be a number" })
  .int("must be a whole number")
  .min(1, "must be at least 1")
  .max(2_147_483_647, "is too large");

const fromStep = z.coerce
  .number({ message: "must be a number" })
  .int("must be a whole number")
  .min(1, "must be at least 1")
  .max(100_000, "is past any journal");

/** The corrected input as the reviewer typed it: JSON text the ledger can store. */
const inputJson = z
  .string({ message: "is required" })
  .max(MAX_INPUT_BYTES, `must be at most ${MAX_INPUT_BYTES / 1024} KB`)
  .transform((text, ctx): JsonValue => {
    try {
      const value = toJsonValue(JSON.parse(text), "input");
      if (Buffer.byteLength(canonicalJson(value)) > MAX_INPUT_BYTES) {
        ctx.addIssue({ code: "custom", message: `must be at most ${MAX_INPUT_BYTES / 1024} KB` });
        return z.NEVER;
      }
      return value;
    } catch (error) {
      ctx.addIssue({
        code: "custom",
        message: `is not valid JSON (${error instanceof Error ? error.message : "unreadable"})`,
      });
      return z.NEVER;
    }
  });

const note = z.preprocess(
  (v) => (typeof v === "string" && v.trim() === "" ? undefined : v),
  z.string().trim().max(1000, "must be at most 1000 characters").optional(),
);

export const correctInputAction = defineAction({
  name: "correctInputAction",
  scope: "deadLetters:review",
  input: z.object({ taskId, version, input: inputJson, fromStep, note }),
  run: async (input, viewer) =>
    fromCommand(await correctInput(getPool(), principalOf(viewer), input)),
});

/**
 * Read-only: whether the corrected input passes the agent's schema (field by field) and, if it
 * does, what the replay would do with it.
 */
export const previewCorrectionAction = defineAction({
  name: "previewCorrectionAction",
  scope: "deadLetters:review",
  input: z.object({ taskId, input: inputJson, fromStep }),
  run: async (input, viewer): Promise<ActionResult<CorrectionPreview & { lastStep: number }>> => {
    const pool = getPool();
    const preview = await previewCorrection(
      pool,
      viewer,
      input.taskId,
      input.input,
      input.fromStep,
    );
    if (!preview.ok) return fromCommand(preview);
    const checked = await checkAgentInput(pool, preview.value.agent, input.input);
    return fromCommand(checked.ok ? preview : invalid(checked.message));
  },
});
