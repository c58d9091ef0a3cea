// A task's priority: among the tasks runnable now, a higher one is claimed first (an urgent
// refund before a bulk import's reminders enqueued earlier). One bound for every way in: the
// library, the HTTP API, the CLI and the database's check.
import { z } from "zod";

export const PRIORITY_MIN = -1000;
export const PRIORITY_MAX = 1000;
export const DEFAULT_PRIORITY = 0;

export const prioritySchema = z
  .number({ message: "must be a number" })
  .int("must be a whole number")
  .min(PRIORITY_MIN, `must be at least ${PRIORITY_MIN}`)
  .max(PRIORITY_MAX, `must be at most ${PRIORITY_MAX}`);
