// Worker presence: one `workers` row per process, so "no worker is alive" can be observed even
// when the fleet is idle (task leases only say who holds work). Written beside the heartbeat,
// never in its way: a presence write that fails is dropped and the next tick tries again.
import { hostname } from "node:os";
import type { SqlClient } from "../../db/client";
import type { WorkerRole } from "../../db/schema/workers";

/** Rows of workers stopped or unseen this long are dropped when a worker starts. */
const FORGET_AFTER = "1 day";

export async function registerWorker(
  client: SqlClient,
  worker: { id: string; role: WorkerRole; agents: readonly string[] },
): Promise<void> {
  await client.query(
    `insert into workers (id, host, pid, role, agents)
     values ($1, $2, $3, $4, $5)
     on conflict (id) do update set last_seen_at = now(), stopped_at = null, agents = excluded.agents`,
    [worker.id, hostname(), process.pid, worker.role, [...worker.agents]],
  );
  // Housekeeping, cheap at start. The newest fleet row stays whatever its age: it is what a
  // running no_live_worker outage is named after, and dropping it would name the outage anew.
  await client.query(
    `delete from workers
     where coalesce(stopped_at, last_seen_at) < now() - $1::interval
       and id is distinct from (select id from workers where role = 'worker'
                                order by last_seen_at desc limit 1)`,
    [FORGET_AFTER],
  );
}

export async function touchWorker(client: SqlClient, id: string): Promise<void> {
  await client.query(
    "update workers set last_seen_at = now() where id = $1 and stopped_at is null",
    [id],
  );
}

export async function markWorkerStopped(client: SqlClient, id: string): Promise<void> {
  await client.query("update workers set last_seen_at = now(), stopped_at = now() where id = $1", [
    id,
  ]);
}
