// agent-ledger enqueue --input @file.jsonl as scripts see it: the real binary against a real
// database, judged by exit code, output and the rows it leaves. The whole file or nothing.
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { setUpTestDatabase } from "../../db/testing/database";
import { ENQUEUE_CHUNK } from "../../lib/server/commands/enqueue-tasks";
import { ACTOR, cliOn, SLOW } from "./testing";

const t = await setUpTestDatabase("cli-enqueue-lines");
const TMP = mkdtempSync(path.join(os.tmpdir(), "agent-ledger-jsonl-"));
const cli = cliOn(t);

await t.pool.query(
  "insert into agent_catalog (name, input_schema, tools, published_by) values ('mailer', $1, '[]', 'test')",
  [
    JSON.stringify(
      z.toJSONSchema(z.object({ to: z.email(), invoiceId: z.string().min(1) }), { io: "input" }),
    ),
  ],
);

const file = (name: string, lines: unknown[]) => {
  const p = path.join(TMP, name);
  writeFileSync(p, lines.map((l) => (typeof l === "string" ? l : JSON.stringify(l))).join("\n"));
  return p;
};
const mail = (i: number) => ({ input: { to: `u${i}@example.com`, invoiceId: `inv_${i}` } });
const count = async () =>
  Number((await t.pool.query("select count(*)::int as n from tasks")).rows[0].n);

describe("enqueue --input @file.jsonl", SLOW, () => {
  it(`enqueues every line, ${ENQUEUE_CHUNK} at a time, with its ledger entry; a key run again enqueues nothing`, async () => {
    const n = ENQUEUE_CHUNK + 3;
    const lines: Record<string, unknown>[] = Array.from({ length: n }, (_, i) => mail(i));
    lines[1] = { ...mail(1), key: "inv-1", runAt: "2030-01-01T00:00:00Z" };
    const p = file("tasks.jsonl", [...lines.slice(0, 2), "", ...lines.slice(2)]);
    const r = cli(["enqueue", "--agent", "mailer", "--input", `@${p}`]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(
      `Enqueued ${n} tasks from ${p} for 1 agent: ${n} new, 0 already existed for their key.\n`,
    );
    const { rows } = await t.pool.query(
      `select count(*)::int as tasks, count(*) filter (where l.actor = $1)::int as entries
       from tasks t join ledger_entries l on l.task_id = t.id and l.kind = 'task.enqueued'`,
      [ACTOR],
    );
    expect(rows[0]).toEqual({ tasks: n, entries: n });
    const keyed = await t.pool.query("select run_at from tasks where enqueue_key = 'inv-1'");
    expect(keyed.rows[0]?.run_at.toISOString()).toBe("2030-01-01T00:00:00.000Z");

    const again = cli(["enqueue", "--input", "-", "--jsonl", "--json"], {
      input: `${JSON.stringify({ agent: "mailer", ...lines[1] })}\n`,
    });
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({
      line: 1,
      created: false,
      agent: "mailer",
      key: "inv-1",
    });
    expect(await count()).toBe(n);
  });

  it("a bad line enqueues nothing and is named by its line number: not JSON, not a task, or refused by the schema", async () => {
    const before = await count();
    const notJson = cli([
      "enqueue",
      "--agent",
      "mailer",
      "--input",
      `@${file("a.jsonl", [mail(100), "{to: x}"])}`,
    ]);
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toMatch(/a\.jsonl: line 2: is not JSON: /);
    expect(notJson.stderr).toContain("nothing was enqueued");

    const notTask = cli([
      "enqueue",
      "--agent",
      "mailer",
      "--input",
      `@${file("b.jsonl", [mail(101), { to: "x@example.com" }])}`,
    ]);
    expect(notTask.code).toBe(2);
    expect(notTask.stderr).toMatch(/b\.jsonl: line 2: .*unknown field "to": each line is a task/);

    const refused = cli([
      "enqueue",
      "--agent",
      "mailer",
      "--input",
      `@${file("c.jsonl", [mail(102), { input: { to: "nobody" } }, mail(103), { agent: "mailr", input: {} }])}`,
    ]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /c\.jsonl: line 2: does not match mailer's input schema: input\.to: /,
    );
    expect(refused.stderr).toContain('c.jsonl: line 4: no agent "mailr"; known agents: mailer');
    expect(await count()).toBe(before);
  });

  it("--priority sets one task's priority and is the default of lines without their own; a bad one exits 2", async () => {
    const one = cli([
      "enqueue",
      "--agent",
      "mailer",
      "--input",
      JSON.stringify({ to: "p@example.com", invoiceId: "prio_0" }),
      "--priority",
      "7",
      "--json",
    ]);
    expect(one.code, one.stderr).toBe(0);
    const single = (JSON.parse(one.stdout) as { taskId: string }).taskId;
    const p = file("prio.jsonl", [
      { input: { to: "p@example.com", invoiceId: "prio_1" }, priority: -2 },
      { input: { to: "p@example.com", invoiceId: "prio_2" } },
    ]);
    const lines = cli(["enqueue", "--agent", "mailer", "--input", `@${p}`, "--priority", "40"]);
    expect(lines.code, lines.stderr).toBe(0);
    const { rows } = await t.pool.query<{ invoice: string; priority: number }>(
      `select input->>'invoiceId' as invoice, priority from tasks
        where input->>'invoiceId' like 'prio\\_%' order by 1`,
    );
    expect(rows).toEqual([
      { invoice: "prio_0", priority: 7 },
      { invoice: "prio_1", priority: -2 },
      { invoice: "prio_2", priority: 40 },
    ]);
    expect((await t.pool.query("select id from tasks where id = $1", [single])).rowCount).toBe(1);

    const before = await count();
    const bad = cli(["enqueue", "--agent", "mailer", "--input", "{}", "--priority", "urgent"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--priority: must be a whole number from -1000 to 1000");
    const far = file("far.jsonl", [
      { input: { to: "p@example.com", invoiceId: "prio_3" }, priority: 5000 },
    ]);
    const refused = cli(["enqueue", "--agent", "mailer", "--input", `@${far}`]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("line 1: priority: must be at most 1000");
    expect(await count()).toBe(before);
  });

  it("a key already naming another input refuses the file (1), and --key is a usage error", async () => {
    const before = await count();
    const taken = cli([
      "enqueue",
      "--agent",
      "mailer",
      "--input",
      `@${file("d.jsonl", [mail(200), { ...mail(201), key: "inv-1" }])}`,
    ]);
    expect(taken.code).toBe(1);
    expect(taken.stderr).toMatch(
      /d\.jsonl: line 2: key "inv-1" already names task [0-9a-f-]{36} with other input/,
    );
    expect(await count()).toBe(before);

    const usage = cli(["enqueue", "--input", `@${file("e.jsonl", [mail(300)])}`, "--key", "k"]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('--key: names one task; give each line its own "key"');
  });
});
