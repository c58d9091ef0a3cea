// ctx.join's write, in one transaction under the task's lease: read the children, and either
// record the step (all ended, or the deadline passed) or park the task in `waiting` with no lease
// and no attempt spent. The last of the joined children to end wakes its parked parent (trigger
// tasks_wake_joining_parent, through wake_joined_parent of migration 0052); the parent also checks
// again after parking and every JOIN_RECHECK_MS, so a wake lost to a race costs a short delay,
// never a stuck parent.
import type pg from "pg";
import { withTransaction } from "../../db/client";
import type { JsonValue } from "../../lib/domain/json";
import { type TaskStatus, TERMINAL_STATUSES } from "../../lib/domain/task-states";
import type { JoinedChild, JoinResult } from "../../lib/sdk/define";
import { NonRetryableError } from "../../lib/sdk/errors";
import { NO_DEADLINE } from "../../lib/server/commands/event-sql";
import { appendThrough, type HeadRef } from "../../lib/server/ledger/append-known-head";
import type { AppendedEntry, NewLedgerEntry } from "../../lib/server/ledger/append-ledger";
import { journalStep } from "./journal";
import { leasedTo } from "./task-sql";

/** A parked join looks at its children again at least this often, whatever woke it or did not. */
export const JOIN_RECHECK_MS = 30_000;

/** The most children one join waits for. */
export const JOIN_MAX_CHILDREN = 1_000;

export type JoinRequest = {
  worker: string;
  taskId: string;
  /** The attempt's head: its entries go through it (its start on the first). */
  head: HeadRef;
  attempt: number;
  seq: number;
  children: readonly string[];
  timeoutMs: number | undefined;
};

export type JoinOutcome =
  | { kind: "done"; result: JoinResult; appended: AppendedEntry[] }
  | { kind: "parked" }
  | { kind: "lost" };

type ChildRow = {
  id: string;
  agent: string;
  status: TaskStatus;
  parent_id: string | null;
  result: JsonValue | null;
  last_error: JsonValue | null;
};

const errorText = (e: JsonValue | null): string | null => {
  if (e === null) return null;
  if (typeof e === "object" && !Array.isArray(e) && typeof e.message === "string") return e.message;
  return typeof e === "string" ? e : JSON.stringify(e);
};

export async function startJoin(pool: pg.Pool, req: JoinRequest): Promise<JoinOutcome> {
  const actor = `worker:${req.worker}`;
  const entry = (kind: string, data: Record<string, JsonValue>): NewLedgerEntry => ({
    kind,
    actor,
    taskId: req.taskId,
    data: { attempt: req.attempt, step: req.seq, ...data },
  });
  const outcome = await withTransaction(pool, async (client): Promise<JoinOutcome> => {
    // The children first, held for share: a child whose end is being committed is waited for
    // and read as it ended; one that ends after this read waits for our park to commit, and its
    // trigger then finds us waiting and wakes us. Read without the lock, a child ending between
    // our read and our park woke nobody (its trigger saw us running, our look-again after the
    // park could run before its commit), and the parent slept until its 30 s recheck. Taken
    // before our own row, so a child's trigger never waits on us while we wait on it.
    const { rows } = await client.query<ChildRow>({
      name: "runtime_join_children",
      text: `select id, agent, status, parent_id, result, last_error from tasks
             where id = any($1::uuid[]) order by id for share`,
      values: [req.children],
    });
    const leased = await client.query({
      name: "runtime_join_lease",
      text: `select 1 from tasks where id = $1 and ${leasedTo("$2")} for update`,
      values: [req.taskId, req.worker],
    });
    if (leased.rowCount !== 1) return { kind: "lost" };
    const byId = new Map(rows.map((r) => [r.id, r]));
    const strangers = req.children.filter((id) => byId.get(id)?.parent_id !== req.taskId);
    if (strangers.length > 0) {
      throw new NonRetryableError(
        `join: ${strangers.slice(0, 3).join(", ")}${strangers.length > 3 ? " …" : ""} ${strangers.length === 1 ? "is not a child" : "are not children"} of this task (join takes what ctx.spawn returned)`,
      );
    }
    // The deadline the first park of this step set, so a re-run keeps it.
    const started = await client.query<{ deadline: number | null }>({
      name: "runtime_join_started",
      text: `select (result->>'deadline')::bigint as deadline from steps
             where task_id = $1 and seq = $2 and kind = 'join' and status = 'started'`,
      values: [req.taskId, req.seq],
    });
    const first = started.rows[0] === undefined;
    const deadline = first
      ? req.timeoutMs === undefined
        ? null
        : Date.now() + req.timeoutMs
      : (started.rows[0]?.deadline ?? null);
    const children: JoinedChild[] = req.children.map((id) => {
      const c = byId.get(id) as ChildRow;
      return {
        taskId: c.id,
        agent: c.agent,
        status: c.status,
        result: c.status === "succeeded" ? c.result : null,
        error: c.status === "succeeded" ? null : errorText(c.last_error),
      };
    });
    const open = children.filter((c) => !TERMINAL_STATUSES.includes(c.status)).length;
    if (open === 0 || (deadline !== null && deadline <= Date.now())) {
      const result: JoinResult = { timedOut: open > 0, children };
      const step = { seq: req.seq, kind: "join" as const, name: "join", result, effectKey: null };
      if (!(await journalStep(client, req.worker, req.taskId, req.attempt, step))) {
        return { kind: "lost" };
      }
      const tally: Record<string, number> = {};
      for (const c of children) tally[c.status] = (tally[c.status] ?? 0) + 1;
      const appended = await appendThrough(client, req.head, [
        entry(open === 0 ? "children.joined" : "children.timed_out", {
          children: children.length,
          statuses: tally,
        }),
      ]);
      return { kind: "done", result, appended };
    }
    await client.query({
      name: "runtime_join_open",
      text: `insert into steps (task_id, seq, kind, name, status, result, attempt)
             values ($1, $2, 'join', 'join', 'started', $3, $4)
             on conflict (task_id, seq) do update
               set kind = 'join', name = 'join', status = 'started', result = excluded.result,
                   attempt = excluded.attempt, completed_at = null`,
      // The children too: the trigger that wakes the parent reads which ones it waits for.
      values: [
        req.taskId,
        req.seq,
        JSON.stringify({ deadline, children: req.children }),
        req.attempt,
      ],
    });
    const runAt = Math.min(deadline ?? NO_DEADLINE.getTime(), Date.now() + JOIN_RECHECK_MS);
    const parked = await client.query({
      name: "runtime_join_park",
      text: `update tasks set status = 'waiting', run_at = $3, attempts = greatest(attempts - 1, attempt_base),
               lease_owner = null, lease_expires_at = null,
               version = version + 1, updated_at = now(), status_changed_at = now()
             where id = $1 and ${leasedTo("$2")}`,
      values: [req.taskId, req.worker, new Date(runAt)],
    });
    if (parked.rowCount !== 1) return { kind: "lost" };
    // One entry per join, not one per recheck.
    if (first) {
      await appendThrough(
        client,
        req.head,
        entry("children.waiting", {
          children: children.length,
          open,
          deadline: deadline === null ? null : new Date(deadline).toISOString(),
        }),
      );
    }
    return { kind: "parked" };
  });
  // After the park committed: a child that ended while the join decided may have found its
  // parent still running (its trigger woke nothing). Looked at again in a new snapshot, it is
  // seen; the same function (migration 0052) as the children's trigger decides and wakes.
  if (outcome.kind === "parked") await wakeJoinedParents(pool, [req.taskId]);
  return outcome;
}

/** The channel a child's end that woke no parent notifies on (migration 0061). */
export const JOINS_CHANNEL = "agent_ledger_joins";

/**
 * Asks wake_joined_parent of each parent, in id order (two workers waking the same parents lock
 * them in the same order).
 */
export async function wakeJoinedParents(pool: pg.Pool, parents: readonly string[]) {
  await pool.query({
    name: "runtime_join_wake",
    text: "select wake_joined_parent(p) from unnest($1::uuid[]) as p",
    values: [[...new Set(parents)].sort()],
  });
}

/**
 * The worker's side of JOINS_CHANNEL: the parents named by notifications are looked at again,
 * those that arrive while a look runs in one look after it. Two of a parent's children ending in
 * transactions that commit together each see the other open; the look run for the later one's
 * notification comes after both commits and sees both ended.
 */
export function joinWaker(pool: pg.Pool, onError: (err: unknown) => void) {
  let pending = new Set<string>();
  let running: Promise<void> | undefined;
  const flush = async () => {
    while (pending.size > 0) {
      const parents = [...pending];
      pending = new Set();
      await wakeJoinedParents(pool, parents).catch(onError);
    }
    running = undefined;
  };
  return {
    add(parent: string) {
      pending.add(parent);
      running ??= flush();
    },
    /** Resolves once no look is running. */
    idle: () => running ?? Promise.resolve(),
  };
}
