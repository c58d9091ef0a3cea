// A reviewer confirms a bulk action over dead letters: the set is frozen now, in one
// transaction — explicit rows at the versions the reviewer saw, or every task matching the
// filter that was already dead when the confirmation dialog opened (its db-clock asOf) — and
// recorded with its members in the ledger (`bulk.requested` on the bulk's own stream). The
// per-task work is the runner's (bulk-run.ts). The bulk id is the client's key: the same key
// again answers the same bulk action. If any member's preview needs two people, the whole set
// waits for a second, different reviewer (bulk-confirm.ts).
import type pg from "pg";
import { withTransaction } from "../../../db/client";
import type { Principal } from "../../domain/access";
import {
  BULK_TASK_ACTION,
  type BulkAction,
  type BulkStatus,
  MAX_BULK_MEMBERS,
} from "../../domain/bulk-actions";
import { aggregatePreviews, type BulkPreview } from "../../domain/bulk-preview";
import { type CommandResult, conflict, invalid } from "../../domain/command-result";
import { refusalOf } from "../../domain/task-actions";
import { appendLedger, bulkStream } from "../ledger/append-ledger";
import { type BulkSelection, previewsOf, readBulkSet } from "../review/bulk-set";
import { storePrincipal } from "./bulk-principal";

export type BulkRequestInput = {
  /** The client's key for this bulk action (a UUID). */
  bulkId: string;
  action: BulkAction;
  /** Reject: required; the others: optional (a second reviewer reads it). */
  reason?: string;
  /** Replay: the name of the step to replay from in each task's journal; null from step 1. */
  stepName?: string | null;
  selection: BulkSelection;
  /** The db-clock instant the confirmation dialog opened. */
  asOf: string;
};

export type BulkRequested = {
  id: string;
  action: BulkAction;
  status: BulkStatus;
  memberCount: number;
  twoPerson: boolean;
  /** True when this key had already made this bulk action: nothing new was done. */
  repeated: boolean;
  preview: BulkPreview | null;
};

export async function requestBulkAction(
  pool: pg.Pool,
  principal: Principal,
  input: BulkRequestInput,
): Promise<CommandResult<BulkRequested>> {
  // The per-task rule for a dead task: refused here before anything is written, and asked
  // again per task, under its row lock, when the runner acts.
  const refusal = refusalOf(BULK_TASK_ACTION[input.action], "dead", principal);
  if (refusal) return refusal;
  const reason = input.reason?.trim() ?? "";
  if (input.action === "reject" && reason === "") return invalid("a rejection needs a reason");
  const stepName = input.action === "replay" ? input.stepName?.trim() || null : null;
  if (input.selection.kind === "ids" && input.selection.tasks.length === 0) {
    return invalid("choose at least one task");
  }

  return withTransaction(pool, async (client): Promise<CommandResult<BulkRequested>> => {
    // One key, one bulk action: a concurrent retry waits here and then finds the first.
    await client.query("select pg_advisory_xact_lock(hashtextextended($1, 12))", [input.bulkId]);
    const existing = await client.query<{
      action: BulkAction;
      status: BulkStatus;
      member_count: number;
      two_person: boolean;
      requested_by: string;
    }>(
      "select action, status, member_count, two_person, requested_by from bulk_actions where id = $1",
      [input.bulkId],
    );
    const prior = existing.rows[0];
    if (prior) {
      if (prior.requested_by !== principal.actor || prior.action !== input.action) {
        return conflict(`bulk action ${input.bulkId} already exists for another request`);
      }
      return {
        ok: true,
        value: {
          id: input.bulkId,
          action: prior.action,
          status: prior.status,
          memberCount: prior.member_count,
          twoPerson: prior.two_person,
          repeated: true,
          preview: null,
        },
      };
    }
    const clock = await client.query<{ future: boolean }>(
      "select $1::timestamptz > now() as future",
      [input.asOf],
    );
    if (clock.rows[0]?.future) return invalid("asOf is later than the database clock");

    const members = await readBulkSet(
      client,
      input.selection,
      input.asOf,
      stepName,
      MAX_BULK_MEMBERS + 1,
    );
    if (members.length === 0) {
      return invalid("no dead task matches: nothing was frozen");
    }
    if (members.length > MAX_BULK_MEMBERS) {
      return invalid(
        `more than ${MAX_BULK_MEMBERS} tasks match; narrow the filter (by age, agent or error)`,
      );
    }
    const previews = await previewsOf(client, input.action, members);
    const preview = previews.length > 0 ? aggregatePreviews(previews) : null;
    const twoPerson = preview?.twoPerson ?? false;
    const status: BulkStatus = twoPerson ? "awaiting_second" : "running";
    // Replay and resume may say why too: the second reviewer reads it before confirming.
    const params = {
      ...(input.action === "reject" || input.action === "cancel" || reason !== ""
        ? { reason }
        : {}),
      ...(input.action === "replay" ? { stepName } : {}),
    };
    const selection =
      input.selection.kind === "ids"
        ? { kind: "ids", taskIds: input.selection.tasks.map((t) => t.taskId) }
        : { kind: "filter", filter: input.selection.filter };
    await client.query(
      `insert into bulk_actions (id, action, params, selection, as_of, status, two_person,
         member_count, requested_by, requested_principal)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [
        input.bulkId,
        input.action,
        JSON.stringify(params),
        JSON.stringify(selection),
        input.asOf,
        status,
        twoPerson,
        members.length,
        principal.actor,
        JSON.stringify(storePrincipal(principal)),
      ],
    );
    await client.query(
      `insert into bulk_action_members (bulk_id, task_id, position, task_version, from_step)
       select $1, m.task_id, m.position, m.version, m.from_step
       from unnest($2::uuid[], $3::int[], $4::int[], $5::int[]) as m(task_id, position, version, from_step)`,
      [
        input.bulkId,
        members.map((m) => m.taskId),
        members.map((_, i) => i + 1),
        members.map((m) => m.version),
        members.map((m) => m.fromStep),
      ],
    );
    await appendLedger(client, bulkStream(input.bulkId), {
      kind: "bulk.requested",
      actor: principal.actor,
      data: {
        bulkId: input.bulkId,
        action: input.action,
        params,
        selection,
        asOf: input.asOf,
        twoPerson,
        members: members.map((m) => ({ taskId: m.taskId, version: m.version })),
        ...(preview ? { preview } : {}),
      },
    });
    return {
      ok: true,
      value: {
        id: input.bulkId,
        action: input.action,
        status,
        memberCount: members.length,
        twoPerson,
        repeated: false,
        preview,
      },
    };
  });
}
