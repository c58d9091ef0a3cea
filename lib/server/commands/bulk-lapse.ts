// Before the runner acts on a member, the people a bulk action acts for are read as they stand
// now: a role that no longer allows the action, a disabled user or a revoked token stops the
// bulk (`bulk.stopped`, what is left skipped with the reason) instead of acting with the rights
// they held when they confirmed it.
import type { SqlClient } from "../../../db/client";
import type { Principal } from "../../domain/access";
import { BULK_TASK_ACTION, type BulkAction } from "../../domain/bulk-actions";
import { refusalOf } from "../../domain/task-actions";
import { appendLedger, bulkStream } from "../ledger/append-ledger";
import { endBulk } from "./bulk-end";
import { currentPrincipal, readPrincipal } from "./bulk-principal";

/** Who the runner's own entries name when no person decided (a stop). */
export const RUNNER_ACTOR = "bulk-runner";

/** What of a claimed member's bulk this reads. */
type BulkOf = { action: BulkAction; requested_principal: unknown; confirmed_principal: unknown };

export type People =
  | { kind: "ready"; first: Principal; second: Principal | null }
  | { kind: "unreadable" }
  | { kind: "lapsed"; actor: string; reason: string };

/**
 * The requester and the confirmer as they stand now, each still allowed the bulk's per-task
 * action on a dead task (the task-actions table); else who lapsed and why. Read for every
 * member, so a change made while a bulk runs stops it at the next member.
 */
export async function peopleNow(client: SqlClient, m: BulkOf): Promise<People> {
  const first = readPrincipal(m.requested_principal);
  const second = m.confirmed_principal ? readPrincipal(m.confirmed_principal) : null;
  if (!first || (m.confirmed_principal && !second)) return { kind: "unreadable" };
  const now: Principal[] = [];
  for (const stored of second ? [first, second] : [first]) {
    const current = await currentPrincipal(client, stored);
    if ("lapsed" in current) {
      return {
        kind: "lapsed",
        actor: stored.actor,
        reason: `stopped before acting: ${current.lapsed} since the bulk action was confirmed`,
      };
    }
    const refusal = refusalOf(BULK_TASK_ACTION[m.action], "dead", current.principal);
    if (refusal) {
      return {
        kind: "lapsed",
        actor: stored.actor,
        reason: `stopped before acting: ${stored.actor} may no longer do this (${refusal.message})`,
      };
    }
    now.push(current.principal);
  }
  const [nowFirst, nowSecond] = now;
  if (!nowFirst) return { kind: "unreadable" };
  return { kind: "ready", first: nowFirst, second: nowSecond ?? null };
}

/**
 * Stops the bulk because a person it acts for lapsed: this member and every one not yet run are
 * skipped with the reason. When another runner loop stopped it first, this member (which that
 * loop could not skip: this one holds it) is skipped here with the reason, on its own entry.
 */
export async function stopFor(
  client: SqlClient,
  m: { bulk_id: string; task_id: string },
  lapsed: { actor: string; reason: string },
): Promise<void> {
  const ended = await endBulk(client, {
    bulkId: m.bulk_id,
    from: "running",
    to: "stopped",
    actor: RUNNER_ACTOR,
    reason: lapsed.reason,
    data: { lapsed: lapsed.actor },
  });
  if (ended) return;
  await client.query(
    `update bulk_action_members set status = 'finished', outcome = 'skipped', detail = $3,
       finished_at = now()
     where bulk_id = $1 and task_id = $2 and status = 'pending'`,
    [m.bulk_id, m.task_id, lapsed.reason],
  );
  await appendLedger(client, bulkStream(m.bulk_id), {
    kind: "bulk.member_finished",
    actor: RUNNER_ACTOR,
    taskId: m.task_id,
    data: { bulkId: m.bulk_id, outcome: "skipped", detail: lapsed.reason, taskStatus: null },
  });
}
