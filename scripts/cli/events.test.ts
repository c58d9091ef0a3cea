// agent-ledger events send as scripts see it: the real binary against a real database, judged
// by exit code, output and the rows it leaves.
import { describe, expect, it } from "vitest";
import { withTransaction } from "../../db/client";
import { setUpTestDatabase } from "../../db/testing/database";
import { stager } from "../../db/testing/stage";
import { insertTask } from "../../lib/server/commands/enqueue-task";
import { ACTOR, cliOn, SLOW } from "./testing";

const t = await setUpTestDatabase("cli-events");
const cli = cliOn(t);

/** A task parked in `waiting` at step 1 for `name` with `match`, as the worker leaves it. */
async function stageWaiting(name: string, match: Record<string, unknown>): Promise<string> {
  const { taskId } = await withTransaction(t.pool, (c) =>
    insertTask(c, { agent: "cli-waiter", input: {}, actor: "test" }),
  );
  await stager(t.pool).waiting(taskId, name, match);
  return taskId;
}

describe("agent-ledger events send", SLOW, () => {
  it("wakes the waiting task, once per key, and refuses bad options naming them", async () => {
    const task = await stageWaiting("doc.signed", { doc: "d-1" });
    const args = ["events", "send", "--name", "doc.signed", "--payload", '{"doc":"d-1"}'];
    const first = cli([...args, "--key", "sign-d-1", "--json"]);
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    const sent = JSON.parse(first.stdout);
    expect(sent).toMatchObject({ created: true, deliveredTo: [task] });
    const { rows } = await t.pool.query("select status from tasks where id = $1", [task]);
    expect(rows[0].status).toBe("queued");
    const { rows: entries } = await t.pool.query(
      "select actor from ledger_entries where task_id = $1 and kind = 'event.delivered'",
      [task],
    );
    expect(entries).toEqual([{ actor: ACTOR }]);

    const again = cli([...args, "--key", "sign-d-1"]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`Already sent under this key: event ${sent.event.id}`);
    const reused = cli([
      "events",
      "send",
      "--name",
      "doc.signed",
      "--payload",
      "{}",
      "--key",
      "sign-d-1",
    ]);
    expect(reused.code).toBe(1);
    expect(reused.stderr).toContain("was used for another event");

    const badName = cli(["events", "send", "--name", "Doc Signed"]);
    expect(badName.code).toBe(2);
    expect(badName.stderr).toContain("--name: must be dotted lower-case words");
    const badPayload = cli(["events", "send", "--name", "doc.signed", "--payload", "[1]"]);
    expect(badPayload.code).toBe(2);
    expect(badPayload.stderr).toContain("--payload: must be a JSON object");
  });
});
