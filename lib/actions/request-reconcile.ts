"use server";
// "Check with the provider" on the resolve-outcome form: records a pending check that a worker
// running the task's agent answers with the tool's reconcile. Nothing about the effect or the
// task changes; the live task page shows the answer once the worker has recorded it.
import { z } from "zod";
import { defineAction, fromCommand } from "../auth/guard";
import { principalOf } from "../domain/access";
import { requestReconcile } from "../server/commands/request-reconcile";
import { getPool } from "../server/db";
import { effectKey, taskId } from "./review-fields";

export const requestReconcileAction = defineAction({
  name: "requestReconcileAction",
  scope: "outcomes:resolve",
  input: z.object({ taskId, key: effectKey }),
  run: async (input, viewer) =>
    fromCommand(await requestReconcile(getPool(), principalOf(viewer), input)),
});
