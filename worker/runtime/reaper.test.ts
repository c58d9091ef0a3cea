// The reaper decides a crashed attempt only for agents whose code it runs (that code may set
// the retry policy): a worker running other agents, like the web server's alert-delivery
// worker, leaves the lease to a worker that knows the agent.
import { describe, expect, it } from "vitest";
import { withTransaction } from "../../db/client";
import { setUpTestDatabase } from "../../db/testing/database";
import { insertTask } from "../../lib/server/commands/enqueue-task";
import { reapExpiredLeases } from "./reaper";

const t = await setUpTestDatabase("reaper");

async function crashed(agent: string): Promise<string> {
  const { taskId } = await withTransaction(t.pool, (c) =>
    insertTask(c, { agent, input: {}, actor: "test" }),
  );
  const { rowCount } = await t.pool.query(
    `update tasks set status = 'running', attempts = 1, lease_owner = 'dead-worker',
       lease_expires_at = now() - interval '1 second'
     where id = $1`,
    [taskId],
  );
  expect(rowCount).toBe(1);
  return taskId;
}

const status = async (id: string) =>
  (await t.pool.query<{ status: string }>("select status from tasks where id = $1", [id])).rows[0]
    ?.status;

describe("reapExpiredLeases", () => {
  it("reaps the agents it runs and leaves the others' leases alone", async () => {
    const mine = await crashed("known-agent");
    const theirs = await crashed("other-agent");
    const reaped = await reapExpiredLeases(t.pool, "reaper-1", new Map([["known-agent", {}]]));
    expect(reaped).toBe(1);
    expect(await status(mine)).toBe("retry_wait");
    expect(await status(theirs)).toBe("running");
    expect(await reapExpiredLeases(t.pool, "reaper-2", new Map([["other-agent", {}]]))).toBe(1);
    expect(await status(theirs)).toBe("retry_wait");
  });
});
