// `agent-ledger schedules` as scripts see it: a real process against a real database, judged by
// exit code, output and the rows and ledger entries it leaves.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { setUpTestDatabase } from "../../db/testing/database";
import { defineAgent } from "../../lib/sdk/define";
import { publishCatalog } from "../../worker/runtime/catalog";
import { ACTOR, cliOn } from "./testing";

const t = await setUpTestDatabase("cli-schedules");
const run = cliOn(t);
const cli = (args: string[]) => run(["schedules", ...args]);

describe("agent-ledger schedules", { timeout: 240_000 }, () => {
  it("adds, lists, pauses, resumes and removes a schedule; all in the ledger", async () => {
    const reminder = defineAgent({
      name: "reminder",
      input: z.object({ team: z.string() }),
      tools: {},
      run: async () => null,
    });
    await publishCatalog(t.pool, [reminder], "w-test");
    const ref = ["--agent", "reminder", "--name", "weekday-9"];
    const added = cli([
      "add",
      ...ref,
      "--cron",
      "0 9 * * 1-5",
      "--timezone",
      "Europe/Paris",
      "--input",
      '{"team":"ops"}',
      "--missed",
      "run-once",
    ]);
    expect(added.code, added.stderr).toBe(0);

    const badCron = cli([
      "add",
      "--agent",
      "reminder",
      "--name",
      "x",
      "--cron",
      "0 9 * *",
      "--input",
      "{}",
    ]);
    expect(badCron.code).toBe(2);
    expect(badCron.stderr).toMatch(/cron: "0 9 \* \*" has 4 fields/);
    const badInput = cli([
      "add",
      "--agent",
      "reminder",
      "--name",
      "x",
      "--cron",
      "* * * * *",
      "--input",
      '{"team":1}',
    ]);
    expect(badInput.code).toBe(2);
    expect(badInput.stderr).toMatch(/input\.team/);

    expect(cli(["pause", ...ref]).code).toBe(0);
    const again = cli(["pause", ...ref]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already paused/);

    const listed = cli(["list", "--json"]);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toMatchObject([
      {
        agent: "reminder",
        name: "weekday-9",
        cron: "0 9 * * 1-5",
        timezone: "Europe/Paris",
        missed: "run-once",
        source: "admin",
        paused: true,
        input: { team: "ops" },
      },
    ]);
    expect(cli(["list"]).stdout).toMatch(
      /weekday-9\s+0 9 \* \* 1-5\s+Europe\/Paris\s+run-once\s+admin\s+paused/,
    );

    expect(cli(["resume", ...ref]).code).toBe(0);
    expect(cli(["remove", ...ref]).code).toBe(0);
    expect(cli(["remove", ...ref]).code).toBe(1);

    const { rows } = await t.pool.query<{ kind: string; actor: string }>(
      "select kind, actor from ledger_entries where kind like 'schedule.%' order by id",
    );
    expect(rows).toEqual(
      ["schedule.created", "schedule.paused", "schedule.resumed", "schedule.deleted"].map(
        (kind) => ({
          kind,
          actor: ACTOR,
        }),
      ),
    );
  });
});
