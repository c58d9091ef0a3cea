// What the harness tells its watchdog (scripts/chaos/watchdog.ts), one JSON object a line.
import { z } from "zod";

export const watchdogMessageSchema = z.union([
  /** A child started in its own process group (its pid is the group id). */
  z.strictObject({ group: z.number().int().positive() }),
  /** That child exited: never signal its pid again, it may belong to someone else by now. */
  z.strictObject({ forget: z.number().int().positive() }),
  /** The throwaway cluster: stop this postmaster and remove its directory. */
  z.strictObject({ postmaster: z.number().int().positive(), dir: z.string().min(1) }),
  /** A database of the harness's on a server it did not start: drop it. */
  z.strictObject({ database: z.strictObject({ superUrl: z.string(), name: z.string() }) }),
  /** A scratch folder of the harness's: remove it, unless told to keep it. */
  z.strictObject({ scratch: z.string().min(1) }),
  z.strictObject({ keep: z.string().min(1) }),
  /** The harness stopped the cluster (or dropped its databases) itself. */
  z.strictObject({ forgetCluster: z.literal(true) }),
]);
export type WatchdogMessage = z.infer<typeof watchdogMessageSchema>;
