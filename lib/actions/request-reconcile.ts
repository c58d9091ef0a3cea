"use server";
// "Check with the provider" on the resolve-outcome form: records a pending check that a worker
// running the task's agent answers with the tool's reconcile. Nothing about the effect or the
// task changes; the live task page shows the answer once the worker has recorded it.
import { z } from "zod";
import { defineAction, fromCommand } from "../auth/guard";
import { principalOf } from "../domain/access";
import { requestReconcile } from "../server/commands/request-reconcile";
import { getPool } from "../server/db";

export const requestReconcileAction = defineAction({
  name: "requestReconcileAction",
  scope: "outcomes:resolve",
  input: z.object({
    taskId: z
      .string({ message: "is required" })
      .trim()
      .toLowerCase()
      .pipe(z.uuid({ message: "must be a task id (a UUID)" })),
    key: z
      .string({ message: "is required" })
      .regex(/^[0-9a-f]{64}$/, "must be an effect key (64 hex digits)"),
  }),
  run: async (input, viewer) =>
    fromCommand(await requestReconcile(getPool(), principalOf(viewer), input)),
});
