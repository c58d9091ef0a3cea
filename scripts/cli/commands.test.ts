// enqueue, tasks, dead-letters, replay, approve, reject, export, and progress on verify and
// seed, as scripts see them: real processes against a real database, judged by exit code,
// output and the rows they leave. Rows a worker would write are staged directly.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { withTransaction } from "../../db/client";
import { setUpTestDatabase } from "../../db/testing/database";
import { stager } from "../../db/testing/stage";
import { insertTask } from "../../lib/server/commands/enqueue-task";
import { appendLedger } from "../../lib/server/ledger/append-ledger";
import type { EntryRow } from "../../lib/server/ledger/verify-ledger";
import { ACTOR, cliOn, SLOW } from "./testing";

const t = await setUpTestDatabase("cli-ops");
const { step, effect, approval } = stager(t.pool);
const TMP = mkdtempSync(path.join(os.tmpdir(), "agent-ledger-cli-"));
const cli = cliOn(t);

// What workers would have published: a mail agent with a checked input, and one that pays.
const mailerInput = z.object({ to: z.email(), invoiceId: z.string().min(1) });
for (const [name, schema, tools] of [
  ["mailer", z.toJSONSchema(mailerInput, { io: "input" }), [{ name: "send", money: false }]],
  ["payer", {}, [{ name: "pay", money: true }]],
] as const) {
  await t.pool.query(
    "insert into agent_catalog (name, input_schema, tools, published_by) values ($1, $2, $3, 'test')",
    [name, JSON.stringify(schema), JSON.stringify(tools)],
  );
}

async function task(
  agent: string,
  status: "dead" | "awaiting_approval",
  lastError: string | null = null,
): Promise<{ id: string; version: number }> {
  const { taskId } = await withTransaction(t.pool, (c) =>
    insertTask(c, { agent, input: { to: "ada@example.com", invoiceId: "inv_1" }, actor: "test" }),
  );
  const { rows } = await t.pool.query<{ version: number }>(
    `update tasks set status = $2, dead_reason = $3, attempts = 3, version = version + 1,
       last_error = $4
     where id = $1 returning version`,
    [
      taskId,
      status,
      status === "dead" ? "outcome_unknown" : null,
      lastError ? JSON.stringify({ message: lastError }) : null,
    ],
  );
  return { id: taskId, version: rows[0]?.version ?? 0 };
}

/** A dead mail task: a model decision, a send that went out, a send that failed. */
async function deadMailer(lastError = "smtp timeout") {
  const dead = await task("mailer", "dead", lastError);
  await step(dead.id, 1, "model", "decide");
  const sent = await effect(dead.id, 2, "send", "succeeded");
  await step(dead.id, 2, "tool", "send", sent);
  const failed = await effect(dead.id, 3, "send", "failed");
  return { ...dead, sent, failed };
}

const row = async (id: string) =>
  (
    await t.pool.query<{ status: string; version: number }>(
      "select status, version from tasks where id = $1",
      [id],
    )
  ).rows[0];

const kinds = async (id: string) =>
  (
    await t.pool.query<{ kind: string; actor: string }>(
      "select kind, actor from ledger_entries where task_id = $1 order by seq",
      [id],
    )
  ).rows;

const UNKNOWN = "00000000-0000-4000-8000-000000000000";

describe("agent-ledger --help", SLOW, () => {
  it("lists every command from the real binary", () => {
    const r = cli(["--help"]);
    expect(r.code).toBe(0);
    for (const name of [
      "enqueue",
      "tasks",
      "dead-letters",
      "replay",
      "approve",
      "reject",
      "export",
      "verify",
      "seed",
    ]) {
      expect(r.stdout).toMatch(new RegExp(`^  ${name} +\\S`, "m"));
    }
  });
});

describe("enqueue", SLOW, () => {
  it("refuses an agent no worker published (1), naming the known ones", async () => {
    const r = cli(["enqueue", "--agent", "mailr", "--input", "{}"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no agent "mailr"; known agents: mailer, payer');
    expect((await t.pool.query("select 1 from tasks where agent = 'mailr'")).rowCount).toBe(0);
  });

  it("refuses input that is not JSON, or does not match the agent's schema (2)", () => {
    const notJson = cli(["enqueue", "--agent", "mailer", "--input", "{to: ada}"]);
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toMatch(/^agent-ledger enqueue: --input: is not JSON: /);
    expect(notJson.stderr).toContain("agent-ledger enqueue --agent A --input"); // the usage

    const wrong = cli(["enqueue", "--agent", "mailer", "--input", '{"to":"nobody","invoiceId":7}']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(
      /does not match mailer's input schema: input\.to: .*; input\.invoiceId: /,
    );
  });

  it("enqueues from a file, then with the same key from stdin returns the first task; other input with the key is refused", async () => {
    const file = path.join(TMP, "input.json");
    writeFileSync(file, JSON.stringify({ to: "ada@example.com", invoiceId: "inv_7" }));
    const first = cli([
      "enqueue",
      "--agent",
      "mailer",
      "--input",
      `@${file}`,
      "--key",
      "order-7",
      "--run-at",
      "2030-01-01T00:00:00Z",
    ]);
    expect(first.code, first.stderr).toBe(0);
    const id =
      /^Enqueued task ([0-9a-f-]{36}) for mailer, to run at or after 2030-01-01T00:00:00.000Z\.$/m.exec(
        first.stdout,
      )?.[1];
    expect(id).toBeDefined();
    const { rows } = await t.pool.query<{ created_by: string; run_at: Date; enqueue_key: string }>(
      "select created_by, run_at, enqueue_key from tasks where id = $1",
      [id],
    );
    expect(rows[0]).toMatchObject({ created_by: ACTOR, enqueue_key: "order-7" });
    expect(rows[0]?.run_at.toISOString()).toBe("2030-01-01T00:00:00.000Z");

    const again = cli(
      ["enqueue", "--agent", "mailer", "--input", "-", "--key", "order-7", "--json"],
      { input: '{"invoiceId": "inv_7", "to": "ada@example.com"}' },
    );
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual({
      taskId: id,
      created: false,
      agent: "mailer",
      key: "order-7",
    });

    const other = cli([
      "enqueue",
      "--agent",
      "mailer",
      "--input",
      '{"to":"bob@example.com","invoiceId":"inv_7"}',
      "--key",
      "order-7",
    ]);
    expect(other.code).toBe(1);
    expect(other.stderr).toContain(`key "order-7" already names task ${id} with other input`);
    const count = await t.pool.query("select 1 from tasks where enqueue_key = 'order-7'");
    expect(count.rowCount).toBe(1);
    expect((await kinds(id ?? "")).map((k) => k.kind)).toEqual(["task.enqueued"]);
  });
});

describe("tasks", SLOW, () => {
  it("lists one agent's tasks newest first, a page at a time (--json)", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await task("payer", "awaiting_approval")).id);
    const r = cli(["tasks", "list", "--agent", "payer", "--limit", "2", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const page = JSON.parse(r.stdout);
    expect(page.tasks.map((x: { id: string }) => x.id)).toEqual([ids[2], ids[1]]);
    expect(page.tasks[0]).toMatchObject({ agent: "payer", status: "awaiting_approval" });
    expect(page.olderBefore).toMatch(/Z_[0-9a-f-]{36}$/);
  });

  it("lists by status as a table; a bad status exits 2", async () => {
    const dead = await task("mailer", "dead", "connection reset by peer");
    const r = cli(["tasks", "list", "--status", "dead"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^ID +AGENT +STATUS +ATTEMPTS +CREATED +LAST ERROR$/m);
    expect(r.stdout).toMatch(
      new RegExp(
        `^${dead.id}  mailer +dead \\(outcome_unknown\\) +3 .*connection reset by peer$`,
        "m",
      ),
    );
    expect(r.stdout).not.toContain("awaiting_approval");

    const bad = cli(["tasks", "list", "--status", "deadish"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--status: must be one of: queued, running");
  });

  it("shows one task with steps, effects and its ledger timeline", async () => {
    const d = await deadMailer();
    const human = cli(["tasks", "show", d.id]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain(`Task ${d.id} (mailer)`);
    expect(human.stdout).toMatch(/status +dead \(outcome_unknown\), 3 attempt\(s\), version 2/);
    expect(human.stdout).toContain("Steps (2):");
    expect(human.stdout).toMatch(/^2 +tool +send +completed/m);
    expect(human.stdout).toContain("Effects (2):");
    expect(human.stdout).toMatch(new RegExp(`^3 +send +failed +1 +${d.failed}`, "m"));
    expect(human.stdout).toMatch(/^Ledger \(1 entries\):\n.*\n1 .* task\.enqueued +test/m);

    const json = cli(["tasks", "show", d.id.toUpperCase(), "--json"]);
    expect(json.code, json.stderr).toBe(0);
    const detail = JSON.parse(json.stdout);
    expect(detail.task).toMatchObject({ id: d.id, status: "dead", version: d.version });
    expect(detail.effects.map((e: { key: string; state: string }) => [e.key, e.state])).toEqual([
      [d.sent, "succeeded"],
      [d.failed, "failed"],
    ]);
    expect(detail.timeline.entries.map((e: { kind: string }) => e.kind)).toEqual(["task.enqueued"]);
    expect(detail.payloadsHidden).toBe(false);
  });

  it("exits 1 for a task that does not exist and 2 for something that is not a task id", () => {
    const unknown = cli(["tasks", "show", UNKNOWN]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe(`agent-ledger tasks show: no task ${UNKNOWN}\n`);
    const bad = cli(["tasks", "show", "42"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('"42": is not a task id.');
  });
});

describe("dead-letters", SLOW, () => {
  it("groups dead tasks by reason and error (human and --json); a bad reason exits 2", async () => {
    await task("mailer", "dead", "mailbox full");
    await task("mailer", "dead", "mailbox full");
    const { rows } = await t.pool.query<{ n: number }>(
      "select count(*)::int as n from tasks where status = 'dead' and dead_reason = 'outcome_unknown'",
    );
    const dead = rows[0]?.n ?? 0;

    const human = cli(["dead-letters"]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain(`${dead} dead task(s) as of`);
    expect(human.stdout).toMatch(new RegExp(`^outcome_unknown +${dead} `, "m"));
    expect(human.stdout).toMatch(/^ +2 +\S+ \S+ +mailbox full$/m);
    expect(human.stdout).not.toMatch(/^exhausted/m);

    const json = cli(["dead-letters", "--reason", "outcome_unknown", "--json"]);
    expect(json.code, json.stderr).toBe(0);
    const dto = JSON.parse(json.stdout);
    expect(dto.total).toBe(dead);
    expect(dto.groups).toHaveLength(1);
    expect(dto.groups[0]).toMatchObject({ reason: "outcome_unknown", count: dead });
    expect(dto.groups[0].errors).toContainEqual(
      expect.objectContaining({ message: "mailbox full", count: 2 }),
    );

    const bad = cli(["dead-letters", "--reason", "tired"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--reason: must be one of: exhausted, non_retryable");
  });
});

describe("replay", SLOW, () => {
  it("--dry-run previews which steps run again and which effects dedupe or act, changing nothing", async () => {
    const d = await deadMailer();
    const human = cli(["replay", d.id, "--from-step", "2", "--dry-run"]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain(`Dry run: replaying task ${d.id} (dead, version ${d.version}).`);
    expect(human.stdout).toMatch(/^ {2}2 +tool +send$/m);
    expect(human.stdout).toMatch(
      new RegExp(
        `^ {2}2 +send +${d.sent.slice(0, 16)} +deduplicated: returns its stored result$`,
        "m",
      ),
    );
    expect(human.stdout).toMatch(/^ {2}3 +send +\S+ +ACTS: its earlier attempt failed$/m);
    expect(human.stdout).toContain("One reviewer is enough");

    const json = cli(["replay", d.id, "--from-step", "1", "--dry-run", "--json"]);
    expect(json.code, json.stderr).toBe(0);
    const out = JSON.parse(json.stdout);
    expect(out).toMatchObject({ id: d.id, dryRun: true, version: d.version, pending: null });
    expect(out.preview.rerun.map((s: { seq: number }) => s.seq)).toEqual([1, 2]);
    // The model step runs again first, so even the sent email may change its arguments.
    expect(
      out.preview.effects.map((e: { outcome: string; mayChange: boolean }) => [
        e.outcome,
        e.mayChange,
      ]),
    ).toEqual([
      ["dedupe", true],
      ["act", true],
    ]);
    expect(await row(d.id)).toEqual({ status: "dead", version: d.version });
  });

  it("replays at the version read just before; a stale --version is refused (1)", async () => {
    const d = await deadMailer();
    const r = cli(["replay", d.id, "--from-step", "2", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      id: d.id,
      status: "queued",
      version: d.version + 1,
      waitingFor: null,
      preview: { fromStep: 2 },
    });
    const steps = await t.pool.query("select seq from steps where task_id = $1", [d.id]);
    expect(steps.rows).toEqual([{ seq: 1 }]);
    expect(await kinds(d.id)).toContainEqual({ kind: "replay.requested", actor: ACTOR });

    await t.pool.query(
      "update tasks set status = 'dead', dead_reason = 'exhausted' where id = $1",
      [d.id],
    );
    const stale = cli(["replay", d.id, "--from-step", "1", "--version", String(d.version)]);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain(
      `the task changed since you loaded it: it is dead at version ${d.version + 1}, you acted on version ${d.version}`,
    );
  });

  it("money: the first replay is a request for a second reviewer; the same person again is refused", async () => {
    const d = await task("payer", "dead");
    await step(d.id, 1, "model", "amount");
    await effect(d.id, 2, "pay", "failed");
    const first = cli(["replay", d.id, "--from-step", "1"]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(
      new RegExp(
        `^${ACTOR} asked for a replay of task ${d.id} from step 1 at .* \\(request \\d+\\)\\. Nothing runs until a second, different reviewer confirms it`,
        "m",
      ),
    );
    expect(first.stdout).toContain("pay (step 2) moves money and will act");
    expect(await row(d.id)).toEqual({ status: "dead", version: d.version });

    const again = cli(["replay", d.id, "--from-step", "1"]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(
      "a second, different reviewer must confirm: you asked for a replay from step 1",
    );
  });

  it("bad options exit 2, an unknown task 1", () => {
    const missing = cli(["replay", UNKNOWN]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("--from-step: is required");
    const unknown = cli(["replay", UNKNOWN, "--from-step", "1", "--dry-run"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe(`agent-ledger replay: no task ${UNKNOWN}\n`);
  });
});

describe("approve", SLOW, () => {
  it("approves a parked effect; the task is queued and the ledger names the CLI actor", async () => {
    const p = await task("mailer", "awaiting_approval");
    await approval(p.id, "send", false);
    const r = cli(["approve", p.id, "--note", "checked the invoice"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`Approved task ${p.id}: queued at version ${p.version + 1}.\n`);
    expect(await row(p.id)).toEqual({ status: "queued", version: p.version + 1 });
    expect(await kinds(p.id)).toContainEqual({ kind: "review.approved", actor: ACTOR });
  });

  it("money: the first approval waits for a second reviewer; the same person twice exits 1", async () => {
    const p = await task("payer", "awaiting_approval");
    await approval(p.id, "pay", true);
    const first = cli(["approve", p.id, "--json"]);
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({
      id: p.id,
      status: "awaiting_approval",
      waitingFor: { kind: "approval", requestedBy: ACTOR },
    });
    const again = cli(["approve", p.id]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(
      `a second, different reviewer must approve: ${ACTOR} gave the first approval of pay`,
    );
    expect(await row(p.id)).toEqual({ status: "awaiting_approval", version: p.version });
  });
});

describe("reject", SLOW, () => {
  it("needs a reason (2); rejects with it (--json)", async () => {
    const d = await task("mailer", "dead");
    const none = cli(["reject", d.id]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("--reason: is required");

    const r = cli(["reject", d.id, "--reason", "wrong customer", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ id: d.id, status: "rejected", version: d.version + 1 });
    const { rows } = await t.pool.query<{ actor: string; data: { reason: string } }>(
      "select actor, data from ledger_entries where task_id = $1 and kind = 'review.rejected'",
      [d.id],
    );
    expect(rows).toEqual([
      { actor: ACTOR, data: expect.objectContaining({ reason: "wrong customer" }) },
    ]);
  });
});

/** A minimal RFC 4180 reader for checking what export wrote. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let field = "";
  let record: string[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '"' && field === "") {
      i++;
      while (i < text.length) {
        if (text[i] === '"' && text[i + 1] === '"') {
          field += '"';
          i += 2;
        } else if (text[i] === '"') {
          i++;
          break;
        } else field += text[i++];
      }
    } else if (c === ",") {
      record.push(field);
      field = "";
      i++;
    } else if (c === "\r" && text[i + 1] === "\n") {
      record.push(field);
      records.push(record);
      record = [];
      field = "";
      i += 2;
    } else {
      field += c;
      i++;
    }
  }
  return records;
}

describe("export", SLOW, () => {
  it("writes every entry as JSON Lines in ledger order, stdout holding only data", async () => {
    // The hash each entry chains onto: the one before it in its stream (none is stored).
    const { rows } = await t.pool.query<EntryRow>(
      `select *, coalesce(lag(hash) over (partition by stream order by seq), repeat('0', 64)) as prev_hash
         from ledger_entries order by id`,
    );
    const r = cli(["export", "--format", "jsonl"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe("");
    const lines = r.stdout.split("\n");
    expect(lines.pop()).toBe("");
    expect(lines.map((l) => JSON.parse(l))).toEqual(
      rows.map((e) => ({
        id: e.id,
        stream: e.stream,
        seq: e.seq,
        at: e.at.toISOString(),
        kind: e.kind,
        actor: e.actor,
        taskId: e.task_id,
        key: e.key,
        data: e.data,
        prevHash: e.prev_hash,
        hash: e.hash,
      })),
    );
  });

  it("keeps to the --from/--to window", async () => {
    const { rows } = await t.pool.query<{ at: Date }>(
      "select distinct at from ledger_entries order by at",
    );
    const from = rows[1]?.at ?? new Date();
    const to = rows[rows.length - 1]?.at ?? new Date();
    const expected = await t.pool.query<{ id: number }>(
      "select id from ledger_entries where at >= $1 and at < $2 order by id",
      [from, to],
    );
    expect(expected.rowCount).toBeGreaterThan(0);
    const r = cli([
      "export",
      "--format",
      "jsonl",
      "--from",
      from.toISOString(),
      "--to",
      to.toISOString(),
    ]);
    expect(r.code, r.stderr).toBe(0);
    const ids = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l).id);
    expect(ids).toEqual(expected.rows.map((e) => e.id));
  });

  it("writes one stream as RFC 4180 CSV to a file, with progress on stderr when asked", async () => {
    const actor = 'night "ops", shift\nB';
    await withTransaction(t.pool, (c) =>
      appendLedger(c, "cli:csv", [
        { kind: "note.added", actor, data: { text: 'a, "b"\nc' } },
        { kind: "note.added", actor: "plain", data: { n: 1 } },
      ]),
    );
    const file = path.join(TMP, "stream.csv");
    const r = cli([
      "export",
      "--format",
      "csv",
      "--stream",
      "cli:csv",
      "--out",
      file,
      "--progress",
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`Exported 2 entries to ${file}.\n`);
    expect(r.stderr).toMatch(/^exported 2 of 2 entries \(100%\)$/m);
    const text = readFileSync(file, "utf8");
    expect(text.endsWith("\r\n")).toBe(true);
    const [header, ...records] = parseCsv(text);
    expect(header).toEqual([
      "id",
      "stream",
      "seq",
      "at",
      "kind",
      "actor",
      "taskId",
      "key",
      "data",
      "prevHash",
      "hash",
    ]);
    const { rows } = await t.pool.query<EntryRow>(
      `select *, coalesce(lag(hash) over (order by seq), repeat('0', 64)) as prev_hash
         from ledger_entries where stream = 'cli:csv' order by seq`,
    );
    expect(records).toHaveLength(2);
    expect(
      records.map((f) => [f[1], f[2], f[4], f[5], f[6], JSON.parse(f[8] ?? ""), f[9], f[10]]),
    ).toEqual(
      rows.map((e) => [e.stream, String(e.seq), e.kind, e.actor, "", e.data, e.prev_hash, e.hash]),
    );
  });

  it("bad options exit 2; an unknown stream exits 1", () => {
    const bad = cli(["export", "--format", "xml"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--format: must be jsonl or csv");
    const none = cli(["export", "--format", "csv", "--stream", "task:nope"]);
    expect(none.code).toBe(1);
    expect(none.stderr).toBe('agent-ledger export: no ledger stream "task:nope"\n');
    expect(none.stdout).toBe("");
  });
});

describe("progress on verify and seed", SLOW, () => {
  it("verify --progress counts on stderr; stdout stays the JSON report", async () => {
    const { rows } = await t.pool.query<{ n: number }>(
      "select count(*)::int as n from ledger_entries",
    );
    const n = rows[0]?.n ?? 0;
    const r = cli(["verify", "--json", "--progress"]);
    expect(r.code, r.stdout).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, entries: n });
    expect(r.stderr).toContain(
      `verified ${n.toLocaleString("en-US")} of ${n.toLocaleString("en-US")} entries (100%)`,
    );
  });

  it("seed --progress says when it starts and ends on stderr", () => {
    const r = cli(["seed", "--json", "--progress"]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ seeded: true });
    expect(r.stderr).toMatch(/^seeding the demo \(one transaction\)…\nseeded in \d+\.\d s\n$/);
  });
});
