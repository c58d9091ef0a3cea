// Demo staging (`agent-ledger demo outage | bad-input`): tasks for a published agent, written
// in one transaction with a `demo.staged` entry in the system stream that says who staged what,
// so a demo's dead letters are never mistaken for a real incident in the record. An outage's
// tasks are ordinary enqueues, checked against the agent's schema; bad inputs are written as a
// producer that skipped that check would have sent them (the enqueue's own write and
// `task.enqueued` entry, without the check), and the entry says so.
import type pg from "pg";
import { withTransaction } from "../../../db/client";
import type { Principal } from "../../domain/access";
import { type CommandResult, notFound, refuseWithout } from "../../domain/command-result";
import { type JsonValue, toJsonValue } from "../../domain/json";
import { appendLedger, SYSTEM_STREAM } from "../ledger/append-ledger";
import { enqueueTasks } from "./enqueue-tasks";
import { insertTasks } from "./insert-tasks";

export type StageDemoRequest = {
  /** What is staged, as the entry names it. */
  what: "outage" | "bad_input";
  agent: string;
  inputs: readonly unknown[];
  /** false: the inputs skip the schema check (bad inputs); the worker's own check refuses them. */
  checked: boolean;
  /** What else the entry records (the run id, the errors). */
  details?: Record<string, JsonValue>;
};

export async function stageDemoTasks(
  pool: pg.Pool,
  principal: Principal,
  req: StageDemoRequest,
): Promise<CommandResult<{ taskIds: string[] }>> {
  const refused = refuseWithout(principal, "tasks:enqueue", "stage demo tasks");
  if (refused) return refused;
  return withTransaction(pool, async (client): Promise<CommandResult<{ taskIds: string[] }>> => {
    const published = await client.query("select 1 from agent_catalog where name = $1", [
      req.agent,
    ]);
    if (published.rowCount === 0) {
      return notFound(`no worker has published an agent named "${req.agent}" (start a worker)`);
    }
    const requests = req.inputs.map((input) => ({ agent: req.agent, input }));
    let taskIds: string[];
    if (req.checked) {
      const enqueued = await enqueueTasks(client, principal, requests);
      if (!enqueued.ok) return { ok: false, code: enqueued.code, message: enqueued.message };
      taskIds = enqueued.value.map((r) => r.taskId);
    } else {
      taskIds = (await insertTasks(client, principal.actor, requests)).map((r) => r.taskId);
    }
    await appendLedger(client, SYSTEM_STREAM, {
      kind: "demo.staged",
      actor: principal.actor,
      data: toJsonValue(
        {
          what: req.what,
          agent: req.agent,
          tasks: taskIds.length,
          schemaChecked: req.checked,
          firstTaskId: taskIds[0] ?? null,
          ...req.details,
        },
        "data",
      ),
    });
    return { ok: true, value: { taskIds } };
  });
}
