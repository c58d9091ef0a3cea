// replay from step N: steps before N keep their journaled results, steps from N run again, and
// an effect whose key already succeeded returns its stored result instead of acting. The
// preview says, before the reviewer confirms, which known effects would be deduplicated.
import type pg from "pg";
import { type SqlClient, withTransaction } from "../../../db/client";
import { appendLedger, taskStream } from "../ledger/append-ledger";
import { type CommandResult, lockTaskFor, notifyWorkers } from "./task-guard";

export type ReplayEffect = {
  step: number;
  tool: string;
  key: string;
  status: "succeeded" | "failed" | "started";
  /** dedupe: returns the stored result, provided the replay reaches it with the same intent. */
  outcome: "dedupe" | "act" | "outcome_unknown" | "in_flight";
  /** A step re-run before it (a model call or computation) may change its arguments. */
  mayChange: boolean;
};

export type ReplayPreview = {
  fromStep: number;
  rerun: { seq: number; kind: string; name: string }[];
  effects: ReplayEffect[];
};

export async function previewReplay(
  client: SqlClient,
  taskId: string,
  fromStep: number,
): Promise<ReplayPreview> {
  const steps = await client.query<{ seq: number; kind: string; name: string }>(
    "select seq, kind, name from steps where task_id = $1 and seq >= $2 order by seq",
    [taskId, fromStep],
  );
  const effects = await client.query<{
    step_seq: number;
    tool: string;
    key: string;
    status: ReplayEffect["status"];
    live: boolean;
  }>(
    `select step_seq, tool, key, status, coalesce(lease_expires_at > now(), false) as live
     from effects where task_id = $1 and step_seq >= $2 order by step_seq`,
    [taskId, fromStep],
  );
  const firstChanging = steps.rows.find((s) => s.kind !== "tool" && s.kind !== "sleep")?.seq;
  return {
    fromStep,
    rerun: steps.rows,
    effects: effects.rows.map((e) => ({
      step: e.step_seq,
      tool: e.tool,
      key: e.key,
      status: e.status,
      outcome:
        e.status === "succeeded"
          ? "dedupe"
          : e.status === "failed"
            ? "act"
            : e.live
              ? "in_flight"
              : "outcome_unknown",
      mayChange: firstChanging !== undefined && firstChanging < e.step_seq,
    })),
  };
}

export type ReplayInput = { taskId: string; version: number; fromStep: number; actor: string };

export async function replayTask(
  pool: pg.Pool,
  input: ReplayInput,
): Promise<
  CommandResult<{ id: string; status: "queued"; version: number; preview: ReplayPreview }>
> {
  if (!Number.isInteger(input.fromStep) || input.fromStep < 1) {
    return { ok: false, code: "invalid", message: "fromStep must be a whole number from 1" };
  }
  return withTransaction(pool, async (client) => {
    const locked = await lockTaskFor(
      client,
      input.taskId,
      input.version,
      ["dead", "awaiting_approval"],
      "replay",
    );
    if ("error" in locked) return locked.error;
    const { task } = locked;
    const max = await client.query<{ max: number | null }>(
      "select max(seq) as max from steps where task_id = $1",
      [task.id],
    );
    const last = max.rows[0]?.max ?? 0;
    if (input.fromStep > last + 1) {
      return {
        ok: false,
        code: "invalid",
        message: `the task has ${last} journaled step(s); replay can start at step 1 to ${last + 1}`,
      };
    }
    const preview = await previewReplay(client, task.id, input.fromStep);
    await client.query("delete from steps where task_id = $1 and seq >= $2", [
      task.id,
      input.fromStep,
    ]);
    // A parked request may no longer match what the re-run asks for; it asks again if needed.
    await client.query(
      `update approvals set status = 'rejected', decided_by = $2, decided_at = now(), reason = 'superseded by a replay'
       where task_id = $1 and status = 'pending'`,
      [task.id, input.actor],
    );
    const { rows } = await client.query<{ version: number }>(
      `update tasks set status = 'queued', dead_reason = null, attempts = 0, run_at = now(),
         version = version + 1, updated_at = now(), status_changed_at = now()
       where id = $1 and version = $2 returning version`,
      [task.id, task.version],
    );
    await appendLedger(client, taskStream(task.id), {
      kind: "replay.requested",
      actor: input.actor,
      taskId: task.id,
      data: {
        from: task.status,
        fromStep: input.fromStep,
        rerun: preview.rerun,
        effects: preview.effects,
      },
    });
    await notifyWorkers(client, task.id);
    return {
      ok: true,
      value: {
        id: task.id,
        status: "queued" as const,
        version: rows[0]?.version ?? task.version + 1,
        preview,
      },
    };
  });
}
