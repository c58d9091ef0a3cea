// Enqueues one task: enqueueTasks (enqueue-tasks.ts) with one request, answered with that
// request's own refusal. The API, the CLI, the library, the demo seed, the alert evaluator and
// the bench all come through here or there. With a key, enqueueing is idempotent: the same key
// returns the first task and writes nothing.
import type pg from "pg";
import type { SqlClient } from "../../../db/client";
import type { Principal } from "../../domain/access";
import {
  type EnqueueRefusal,
  type EnqueueRequest,
  type EnqueueResult,
  enqueueTasks,
} from "./enqueue-tasks";
import { insertTasks } from "./insert-tasks";

export type { EnqueueRefusal, EnqueueRequest, EnqueueResult } from "./enqueue-tasks";

export type EnqueueOutcome = { ok: true; value: EnqueueResult } | EnqueueRefusal;

/**
 * Checks and enqueues, in the caller's transaction when given a client (the API's
 * Idempotency-Key path stores its response in the same one). On a pool the write is one
 * statement (the task, its ledger stream's first entry and the wake-up), atomic by itself.
 */
export async function enqueueTask(
  db: pg.Pool | SqlClient,
  principal: Principal,
  request: EnqueueRequest,
): Promise<EnqueueOutcome> {
  const outcome = await enqueueTasks(db, principal, [request]);
  if (outcome.ok) {
    const [value] = outcome.value;
    if (!value) throw new Error("enqueue: no result for the one request");
    return { ok: true, value };
  }
  if (outcome.code === "forbidden") return outcome;
  const [item] = outcome.items;
  if (!item) throw new Error("enqueue: a refusal without its item");
  return item.refusal;
}

/**
 * The write itself, no questions asked: the task, its ledger stream's first entry and the
 * wake-up, in the caller's transaction. enqueueTask's last step; tests call it to stage a task
 * for an agent they never publish.
 */
export async function insertTask(
  client: SqlClient,
  req: Omit<EnqueueRequest, "unpublished"> & { actor: string },
): Promise<{ taskId: string; created: boolean }> {
  const [result] = await insertTasks(client, req.actor, [req]);
  if (!result) throw new Error("enqueue: no result for the one request");
  return result;
}
