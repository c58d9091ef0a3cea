// "Check with the provider": a reviewer asks a worker to run a tool's reconcile for an effect
// whose outcome is unknown. The vocabulary the reconcile_checks table checks, and the answer a
// worker records, shared by the command, the worker and the task screen.
import { z } from "zod";

/** pending: waiting for (or being asked by) a worker; answered: the provider said; failed: it could not be asked. */
export const RECONCILE_CHECK_STATUSES = ["pending", "answered", "failed"] as const;
export type ReconcileCheckStatus = (typeof RECONCILE_CHECK_STATUSES)[number];

/** What a worker recorded: the provider's answer, or why it could not be had. */
export const reconcileAnswerSchema = z.union([
  z.object({ happened: z.literal(true), result: z.json() }),
  z.object({ happened: z.literal(false) }),
  z.object({ error: z.string() }),
]);
export type ReconcileAnswer = z.infer<typeof reconcileAnswerSchema>;
