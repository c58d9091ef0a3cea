// Enqueues tasks, one or many: the one place that decides whether they may be (tasks:enqueue),
// whether each agent exists and whether each input matches the JSON Schema its workers published
// (agent_catalog), and the statement that writes them. enqueueTask (enqueue-task.ts) is this
// with one request. A batch is all or nothing: every item is checked before anything is
// written, and one refused item refuses the batch, naming each bad item by its index.
//
// Round trips: one read (the agents' schemas and the database clock: task-input.ts), then one
// statement per 1,000 tasks (insert-tasks.ts).
import pg from "pg";
import { type SqlClient, withTransaction } from "../../../db/client";
import { CommitInDoubtError, isConnectionError } from "../../../db/retry";
import type { Principal } from "../../domain/access";
import { type CommandFailure, refuseWithout } from "../../domain/command-result";
import { type GroupCommit, groupCommit } from "../group-commit";
import { ENQUEUE_CHUNK, type EnqueueRequest, insertTasks } from "./insert-tasks";
import { type InputRefusal, judgeInput, listAgents, notFound, readCatalog } from "./task-input";

export { ENQUEUE_CHUNK, type EnqueueRequest } from "./insert-tasks";

export type EnqueueResult = {
  taskId: string;
  created: boolean;
  /** Why the input was not checked against a published schema, when it was not. */
  unchecked?: string;
};

/** Why a task was not enqueued; nothing was written. */
export type EnqueueRefusal = (CommandFailure & { code: "forbidden" }) | InputRefusal;

/** One refused item of a batch: its index in the request and why. */
export type ItemRefusal = { index: number; refusal: InputRefusal };

export type EnqueueManyOutcome =
  /** One result per request, in order. */
  | { ok: true; value: EnqueueResult[] }
  | (CommandFailure & { code: "forbidden" })
  /** Every refused item; nothing was written. */
  | (CommandFailure & { code: "invalid"; items: ItemRefusal[] });

/**
 * Checks every request, then enqueues them all or none: in the caller's transaction when given
 * a client, otherwise in one of its own (a batch of at most ENQUEUE_CHUNK is one statement,
 * atomic by itself, so it needs none).
 */
export async function enqueueTasks(
  db: pg.Pool | SqlClient,
  principal: Principal,
  requests: readonly EnqueueRequest[],
): Promise<EnqueueManyOutcome> {
  const refused = refuseWithout(principal, "tasks:enqueue", "enqueue tasks");
  if (refused) return { ...refused, code: "forbidden" };
  if (requests.length === 0) return { ok: true, value: [] };
  if (isPool(db) && requests.length > ENQUEUE_CHUNK) {
    return withTransaction(db, (client) => checkAndInsertAll(client, principal.actor, requests));
  }
  const [one] = requests;
  if (isPool(db) && requests.length === 1 && one) {
    return groupedEnqueue(db)({ actor: principal.actor, request: one });
  }
  return checkAndInsertAll(db, principal.actor, requests);
}

type Single = { actor: string; request: EnqueueRequest };
const grouped = new WeakMap<pg.Pool, GroupCommit<Single, EnqueueManyOutcome>>();

/**
 * Single enqueues on one pool share statements (group-commit.ts): requests that arrive while
 * one is being written (concurrent POSTs, say) are checked and written together in the next,
 * each answered as if alone — a refused one is refused, the rest are enqueued. A batch whose
 * connection was lost is in doubt as a whole: its callers get the error, none is re-sent.
 */
function groupedEnqueue(pool: pg.Pool): GroupCommit<Single, EnqueueManyOutcome> {
  let enqueue = grouped.get(pool);
  if (!enqueue) {
    enqueue = groupCommit<Single, EnqueueManyOutcome>({
      one: (s) => checkAndInsertAll(pool, s.actor, [s.request]),
      many: async (batch) => {
        try {
          return await checkAndInsertEach(pool, batch);
        } catch (err) {
          throw isConnectionError(err) ? new CommitInDoubtError(err) : err;
        }
      },
    });
    grouped.set(pool, enqueue);
  }
  return enqueue;
}

/**
 * A pool, not a client. By shape too: the library's caller may hand us a Pool from their own
 * copy of pg, and running the chunks of one batch on a bare pool would split them across
 * connections and transactions.
 */
export function isPool(db: pg.Pool | SqlClient): db is pg.Pool {
  return db instanceof pg.Pool || ("totalCount" in db && "idleCount" in db && !("release" in db));
}

type Verdict = { ok: true; unchecked?: string } | { ok: false; refusal: InputRefusal };

/** Every request checked against the catalog in one read; the database clock for the write. */
async function judgeAll(
  client: SqlClient,
  requests: readonly EnqueueRequest[],
): Promise<{ verdicts: Verdict[]; now: Date }> {
  const { schemas, now } = await readCatalog(
    client,
    requests.map((r) => r.agent),
  );
  let known: string[] | undefined;
  const knownAgents = async () => {
    known ??= await listAgents(client);
    return known;
  };
  const verdicts: Verdict[] = [];
  for (const r of requests) {
    const check = judgeInput(r.agent, r.input, schemas.get(r.agent), r.unpublished);
    verdicts.push(
      check.ok
        ? check
        : {
            ok: false,
            refusal: check.code === "not_found" ? notFound(r.agent, await knownAgents()) : check,
          },
    );
  }
  return { verdicts, now };
}

/** With the enqueue's note when the input could not be checked here. */
const withNote = (w: EnqueueResult, verdict: Verdict | undefined): EnqueueResult =>
  verdict?.ok && verdict.unchecked ? { ...w, unchecked: verdict.unchecked } : w;

/** All or nothing: one refused request refuses them all. */
async function checkAndInsertAll(
  client: SqlClient,
  actor: string,
  requests: readonly EnqueueRequest[],
): Promise<EnqueueManyOutcome> {
  const { verdicts, now } = await judgeAll(client, requests);
  const refusals: ItemRefusal[] = verdicts.flatMap((v, index) =>
    v.ok ? [] : [{ index, refusal: v.refusal }],
  );
  if (refusals.length > 0) {
    const shown = refusals
      .slice(0, 5)
      .map((r) => `#${r.index}: ${r.refusal.message}`)
      .join("; ");
    return {
      ok: false,
      code: "invalid",
      message:
        requests.length === 1
          ? (refusals[0]?.refusal.message ?? "refused")
          : `${refusals.length} of ${requests.length} tasks refused, nothing was enqueued: ${shown}${refusals.length > 5 ? "; …" : ""}`,
      items: refusals,
    };
  }
  const written = await insertTasks(client, actor, requests, now);
  return { ok: true, value: written.map((w, i) => withNote(w, verdicts[i])) };
}

/** Each request on its own (a grouped batch of single enqueues), written in one statement. */
async function checkAndInsertEach(
  pool: pg.Pool,
  batch: readonly Single[],
): Promise<EnqueueManyOutcome[]> {
  const { verdicts, now } = await judgeAll(
    pool,
    batch.map((s) => s.request),
  );
  const accepted = batch.filter((_, i) => verdicts[i]?.ok);
  const written = await insertTasks(
    pool,
    accepted.map((s) => s.actor),
    accepted.map((s) => s.request),
    now,
  );
  let next = 0;
  return verdicts.map((v): EnqueueManyOutcome => {
    if (!v.ok) {
      return {
        ok: false,
        code: "invalid",
        message: v.refusal.message,
        items: [{ index: 0, refusal: v.refusal }],
      };
    }
    const w = written[next++];
    if (!w) throw new Error("enqueue: no result for an accepted request");
    return { ok: true, value: [withNote(w, v)] };
  });
}
