"use server";
// Fix the input and replay: the reviewer's corrected input arrives as JSON text, is checked
// against the agent's published schema (enqueueing's own check) for the preview, and the
// command checks it again under the task's lock before it records the correction and replays.
import { z } from "zod";
import { type ActionResult, defineAction, fromCommand } from "../auth/guard";
import { principalOf } from "../domain/access";
import { invalid } from "../domain/command-result";
import { correctInput } from "../server/commands/correct-input";
import { checkAgentInput } from "../server/commands/task-input";
import { getPool } from "../server/db";
import { previewCorrection } from "../server/queries/get-review-state";
import type { CorrectionPreview } from "../server/review/correction";
import { fromStep, jsonText, note, taskId, version } from "./review-fields";

/** Largest corrected input, in bytes of canonical JSON (a task input, not a document). */
const MAX_INPUT_BYTES = 64 * 1024;

/** The corrected input as the reviewer typed it: JSON text the ledger can store. */
const inputJson = jsonText(MAX_INPUT_BYTES, "input");

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
