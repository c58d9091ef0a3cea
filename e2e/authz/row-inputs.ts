// Inputs the matrix's rows build before their call (matrix.ts): rows of other people's making
// (a frozen bulk action, an alert rule, a schedule) written straight into the e2e database.
import type { MatrixContext, TaskAt } from "./matrix-types";

/** A bulk action over one dead task, frozen by someone else and waiting for a second reviewer. */
export async function pendingBulk(ctx: MatrixContext): Promise<string> {
  return (await pendingBulkOf(ctx)).bulkId;
}

/** The same, with the task it holds. */
export async function pendingBulkOf(
  ctx: MatrixContext,
): Promise<{ bulkId: string; taskId: string }> {
  const task = await ctx.deadTask();
  const id = crypto.randomUUID();
  await ctx.db.query(
    `insert into bulk_actions (id, action, params, selection, as_of, status, two_person,
       member_count, requested_by, requested_principal)
     values ($1, 'resume', '{}', '{}', now(), 'awaiting_second', true, 1,
       'user:first-reviewer@example.com',
       '{"actor":"user:first-reviewer@example.com","who":"the reviewer role","scopes":[]}')`,
    [id],
  );
  await ctx.db.query(
    `insert into bulk_action_members (bulk_id, task_id, position, task_version) values ($1, $2, 1, $3)`,
    [id, task.taskId, task.version],
  );
  return { bulkId: id, taskId: task.taskId };
}

/** A dead task of an agent whose published schema takes any input (a correction must pass it). */
export async function publishedDeadTask(ctx: MatrixContext): Promise<TaskAt> {
  const agent = await ctx.apiAgent();
  const task = await ctx.deadTask();
  await ctx.db.query("update tasks set agent = $2 where id = $1", [task.taskId, agent]);
  return task;
}

/** An unknown outcome whose tool the catalog says can ask its provider (reconcile). */
export async function reconcilableOutcome(
  ctx: MatrixContext,
): Promise<{ taskId: string; key: string }> {
  const { taskId, key } = await ctx.unknownOutcome();
  await ctx.db.query(
    `insert into agent_catalog (name, input_schema, tools, published_by)
     values ('authz-reconcile-agent', '{}', '[{"name": "send_email", "reconcile": true}]', 'e2e')
     on conflict (name) do nothing`,
  );
  await ctx.db.query("update tasks set agent = 'authz-reconcile-agent' where id = $1", [taskId]);
  return { taskId, key };
}

/** A disabled alert rule for one row's call (so no delivery is ever enqueued for it). */
export async function freshAlertRule(ctx: MatrixContext): Promise<{ id: string; version: number }> {
  const { rows } = await ctx.db.query<{ id: string }>(
    `insert into alert_rules (name, kind, destination, url, enabled, created_by)
     values ($1, 'dead_letter', 'slack', 'https://hooks.example.com/services/authz', false, 'authz')
     returning id`,
    [ctx.unique("authz-rule")],
  );
  const id = rows[0]?.id;
  if (!id) throw new Error("could not insert an alert rule");
  return { id, version: 1 };
}

/** An admin's schedule of an agent no worker runs (nothing ticks it in e2e). */
export async function freshSchedule(ctx: MatrixContext): Promise<{ agent: string; name: string }> {
  const name = ctx.unique("authz").toLowerCase();
  await ctx.db.query(
    `insert into schedules (agent, name, cron, timezone, input, missed, source, created_by, updated_by)
     values ('authz-scheduled', $1, '0 9 * * *', 'UTC', '{}', 'skip', 'admin', 'authz', 'authz')`,
    [name],
  );
  return { agent: "authz-scheduled", name };
}

/** A disabled rule with one dead delivery to retry (no worker runs in e2e: it stays queued). */
export async function undeliveredAlert(ctx: MatrixContext): Promise<string> {
  const { id } = await freshAlertRule(ctx);
  await ctx.db.query(
    `insert into tasks (agent, input, status, dead_reason, last_error, attempts, created_by)
     values ('alert-delivery', $1, 'dead', 'exhausted', '{"message": "receiver unreachable (ECONNREFUSED)"}', 8, 'authz')`,
    [
      JSON.stringify({
        ruleId: id,
        destination: "slack",
        event: { id: ctx.unique("authz-event") },
      }),
    ],
  );
  return id;
}
