// The bulk runner: acts on the pending members of running bulk actions, one task at a time,
// each through the same command as that task's own button (approveTask, rejectTask,
// replayTask, cancelTask) with the principal of the reviewer who confirmed — so authorization,
// the version check and the two-person rule apply per task — and records each outcome with a
// `bulk.member_finished` entry naming the bulk. It runs in the web server (runBulkRunner), not
// in the request that confirmed: a confirmation answers at once, and a crash loses nothing —
// a member's row stays locked while it is acted on, so a member whose outcome was not recorded
// is pending again after a restart; acting on it again meets the task's version check, and the
// task's ledger tells whether this bulk had already done it or another reviewer took it (the
// entries a bulk's per-task commands write carry its `bulkId`). The people it acts for are
// re-read from the users table for every member (currentPrincipal): one whose role no longer
// allows the action, or who was disabled, stops the bulk (`bulk.stopped`, the members not yet
// run skipped with the reason) instead of acting with the rights they had when they confirmed.
import type pg from "pg";
import type { SqlClient } from "../../../db/client";
import type { Principal } from "../../domain/access";
import type { BulkAction, MemberOutcome } from "../../domain/bulk-actions";
import type { CommandFailure } from "../../domain/command-result";
import type { Logger } from "../../log";
import { errorFields } from "../../log";
import { appendLedger, bulkStream, taskStream } from "../ledger/append-ledger";
import { approveTask } from "./approve-task";
import { peopleNow, RUNNER_ACTOR, stopFor } from "./bulk-lapse";
import { readPrincipal } from "./bulk-principal";
import { cancelTask } from "./cancel-task";
import { rejectTask } from "./reject-task";
import { replayTask } from "./replay-task";

type Claimed = {
  bulk_id: string;
  task_id: string;
  task_version: number;
  from_step: number | null;
  action: BulkAction;
  params: { reason?: string; stepName?: string | null };
  as_of: Date;
  requested_principal: unknown;
  confirmed_principal: unknown;
};

type Outcome = { outcome: MemberOutcome; detail: string; taskStatus: string | null };

type Answer =
  | { ok: true; value: { status: string; waitingFor?: { requestId: number | null } | null } }
  | CommandFailure;

/** The kinds a person's action on a task writes: what "taken by" looks for. */
const TAKING_KINDS = [
  "review.approved",
  "review.rejected",
  "replay.requested",
  "task.cancelled",
  "review.requested",
  "review.first_approved",
  "outcome.resolved",
  "task.input_corrected",
];

/** The kind this bulk's own action writes on the task when it acts. */
const OWN_KIND: Record<BulkAction, string> = {
  resume: "review.approved",
  reject: "review.rejected",
  replay: "replay.requested",
  cancel: "task.cancelled",
};

const DONE_WORDS: Record<BulkAction, string> = {
  resume: "resumed",
  reject: "rejected",
  replay: "replayed",
  cancel: "cancelled",
};

async function callCommand(pool: pg.Pool, who: Principal, m: Claimed): Promise<Answer> {
  const base = { taskId: m.task_id, version: m.task_version, bulkId: m.bulk_id };
  switch (m.action) {
    case "resume":
      return approveTask(pool, who, { ...base, action: "resume" });
    case "reject":
      return rejectTask(pool, who, { ...base, reason: m.params.reason ?? "" });
    case "cancel":
      return cancelTask(pool, who, { ...base, reason: m.params.reason || undefined });
    case "replay":
      return replayTask(pool, who, { ...base, fromStep: m.from_step ?? 1 });
  }
}

/**
 * Who changed the task since the dialog opened: the first person's entry that is not this
 * bulk's own two-person request — ours (this bulk acted before a restart: the entry carries its
 * bulkId) or another's, a single action or another bulk.
 */
async function takerOf(
  client: SqlClient,
  m: Claimed,
): Promise<{ actor: string; kind: string; at: Date; ours: boolean } | null> {
  const { rows } = await client.query<{
    actor: string;
    kind: string;
    at: Date;
    bulk_id: string | null;
  }>(
    `select actor, kind, at, data ->> 'bulkId' as bulk_id from ledger_entries
     where stream = $1 and at >= $2 and kind = any($3::text[])
     order by seq limit 50`,
    [taskStream(m.task_id), m.as_of, TAKING_KINDS],
  );
  for (const r of rows) {
    const mine = r.bulk_id === m.bulk_id;
    if (mine && r.kind !== OWN_KIND[m.action]) continue;
    return { actor: r.actor, kind: r.kind, at: r.at, ours: mine };
  }
  return null;
}

async function actOn(
  pool: pg.Pool,
  client: SqlClient,
  m: Claimed,
  first: Principal,
  second: Principal | null,
): Promise<Outcome> {
  if (m.action === "replay" && m.from_step === null) {
    return {
      outcome: "refused",
      detail: `the task has no step named ${m.params.stepName ?? ""}`,
      taskStatus: null,
    };
  }
  // After a restart the first reviewer's request may already stand: only the second is left.
  const standing =
    second &&
    (
      await client.query(
        `select 1 from review_requests where task_id = $1 and status = 'pending'
         and requested_by = $2 and task_version = $3`,
        [m.task_id, first.actor, m.task_version],
      )
    ).rows.length > 0;
  let answer: Answer =
    standing && second ? await callCommand(pool, second, m) : await callCommand(pool, first, m);
  if (!standing && answer.ok && answer.value.waitingFor && second) {
    answer = await callCommand(pool, second, m);
  }
  if (answer.ok) {
    if (answer.value.waitingFor) {
      return {
        outcome: "waiting",
        detail: "waits for a second reviewer on the task's own page",
        taskStatus: answer.value.status,
      };
    }
    return { outcome: "done", detail: DONE_WORDS[m.action], taskStatus: answer.value.status };
  }
  if (answer.code === "conflict") {
    const taker = await takerOf(client, m);
    if (taker?.ours) {
      return {
        outcome: "done",
        detail: `${DONE_WORDS[m.action]} (recorded after a restart)`,
        taskStatus: null,
      };
    }
    if (taker) {
      return {
        outcome: "taken",
        detail: `taken by ${taker.actor} (${taker.kind} at ${taker.at.toISOString()})`,
        taskStatus: null,
      };
    }
  }
  return { outcome: "refused", detail: answer.message, taskStatus: null };
}

/**
 * Acts on one pending member of a running bulk action (of `bulkId`, or any); false when none
 * is left. The member's row is locked until its outcome is recorded.
 */
export async function runOneBulkMember(pool: pg.Pool, bulkId?: string): Promise<boolean> {
  const client = await pool.connect();
  let claimed: Claimed | undefined;
  try {
    await client.query("begin");
    const { rows } = await client.query<Claimed>(
      `select m.bulk_id, m.task_id, m.task_version, m.from_step, b.action, b.params, b.as_of,
              b.requested_principal, b.confirmed_principal
       from bulk_action_members m join bulk_actions b on b.id = m.bulk_id
       where m.status = 'pending' and b.status = 'running' and ($1::uuid is null or m.bulk_id = $1)
       order by b.created_at, m.bulk_id, m.position
       limit 1 for update of m skip locked`,
      [bulkId ?? null],
    );
    claimed = rows[0];
    if (!claimed) {
      await client.query("rollback");
      return false;
    }
    const people = await peopleNow(client, claimed);
    if (people.kind === "lapsed") {
      await stopFor(client, claimed, people);
      await client.query("commit");
      return true;
    }
    let outcome: Outcome;
    try {
      outcome =
        people.kind === "ready"
          ? await actOn(pool, client, claimed, people.first, people.second)
          : {
              outcome: "failed",
              detail: "the bulk action's reviewer is unreadable",
              taskStatus: null,
            };
    } catch (error) {
      outcome = {
        outcome: "failed",
        detail: error instanceof Error ? error.message : String(error),
        taskStatus: null,
      };
    }
    const first = readPrincipal(claimed.confirmed_principal ?? claimed.requested_principal);
    await client.query(
      `update bulk_action_members set status = 'finished', outcome = $3, detail = $4,
         task_status = $5, finished_at = now()
       where bulk_id = $1 and task_id = $2 and status = 'pending'`,
      [claimed.bulk_id, claimed.task_id, outcome.outcome, outcome.detail, outcome.taskStatus],
    );
    await appendLedger(client, bulkStream(claimed.bulk_id), {
      kind: "bulk.member_finished",
      actor: first?.actor ?? RUNNER_ACTOR,
      taskId: claimed.task_id,
      data: { bulkId: claimed.bulk_id, ...outcome },
    });
    await client.query("commit");
  } catch (error) {
    await client.query("rollback").catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
  await finishIfDone(pool, claimed.bulk_id);
  return true;
}

/** Marks a bulk action done once no member is pending, with its tally in the ledger (once). */
async function finishIfDone(pool: pg.Pool, bulkId: string): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query("begin");
    const { rows } = await client.query<{ confirmed_by: string | null; requested_by: string }>(
      `update bulk_actions set status = 'done', finished_at = now()
       where id = $1 and status = 'running'
         and not exists (select 1 from bulk_action_members where bulk_id = $1 and status = 'pending')
       returning confirmed_by, requested_by`,
      [bulkId],
    );
    const done = rows[0];
    if (done) {
      const tally = await client.query<{ outcome: MemberOutcome; n: number }>(
        "select outcome, count(*)::int as n from bulk_action_members where bulk_id = $1 group by 1",
        [bulkId],
      );
      await appendLedger(client, bulkStream(bulkId), {
        kind: "bulk.finished",
        actor: done.confirmed_by ?? done.requested_by,
        data: { bulkId, outcomes: Object.fromEntries(tally.rows.map((r) => [r.outcome, r.n])) },
      });
    }
    await client.query("commit");
  } catch (error) {
    await client.query("rollback").catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/** Runs members until none is pending (of `bulkId`, or any); returns how many it acted on. */
export async function drainBulkActions(pool: pg.Pool, bulkId?: string): Promise<number> {
  let n = 0;
  while (await runOneBulkMember(pool, bulkId)) n++;
  return n;
}

export type BulkRunner = { stop: () => Promise<void> };

/**
 * The web server's runner: every `intervalMs` it drains pending members with `concurrency`
 * loops (members are claimed with SKIP LOCKED, so loops and other web processes never share one).
 */
export function startBulkRunner(opts: {
  pool: pg.Pool;
  logger: Logger;
  intervalMs?: number;
  concurrency?: number;
}): BulkRunner {
  let stopping = false;
  let running: Promise<unknown> | null = null;
  const tick = () => {
    if (stopping || running !== null) return;
    const loops = Array.from({ length: opts.concurrency ?? 2 }, async () => {
      while (!stopping && (await runOneBulkMember(opts.pool))) {
        // Keep going while members are pending.
      }
    });
    running = Promise.all(loops)
      .catch((error: unknown) => {
        opts.logger.error(errorFields(error), "the bulk runner stopped on an error; it retries");
      })
      .finally(() => {
        running = null;
      });
  };
  const timer = setInterval(tick, opts.intervalMs ?? 1000);
  tick();
  return {
    stop: async () => {
      stopping = true;
      clearInterval(timer);
      await running;
    },
  };
}
