// agent-ledger demo as a person runs it beside `npm start`: a real process against a real
// database, the demo receivers and a real worker running the demo agents (in this process), so
// every dead letter it stages is one the worker wrote. Judged by exit code, output and rows.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { setUpTestDatabase } from "../../db/testing/database";
import { readPaymentsFaults } from "../../worker/demo/payments-control";
import { recordedRequestSchema } from "../../worker/demo/payments-schemas";
import { OUTAGE_ERRORS } from "../../worker/demo/staging";
import { demoWorker } from "../../worker/demo/testing";
import { writeRunFile } from "../launch/run-file";
import { ACTOR, BIN, cliOn, SLOW } from "./testing";

const t = await setUpTestDatabase("cli-demo");
const idle = await setUpTestDatabase("cli-demo-idle");
// A quick retry policy (4 attempts, 20 ms apart), so an outage's refunds reach their limit fast.
const demo = demoWorker(t.pool, { quickRetries: true, leaseMs: 5_000 });
// A data dir of its own: no run file of a developer's `npm start` in .data/ is read.
const dataDir = mkdtempSync(path.join(tmpdir(), "agent-ledger-cli-demo-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** Spawned without blocking this process, so the worker here can dead-letter meanwhile. */
async function cli(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await promisify(execFile)(process.execPath, [BIN, ...args], {
      encoding: "utf8",
      env: {
        ...process.env,
        DATABASE_URL: t.appUrl,
        DATABASE_OWNER_URL: t.ownerUrl,
        PAYMENTS_URL: demo.receivers.paymentsUrl,
        AGENT_LEDGER_DATA_DIR: dataDir,
        ...env,
      },
      timeout: 180_000,
    });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

async function taskCount(): Promise<number> {
  const { rows } = await t.pool.query<{ n: number }>("select count(*)::int as n from tasks");
  return rows[0]?.n ?? 0;
}

describe("agent-ledger demo", SLOW, () => {
  it("outage: N refunds dead-lettered by the worker in E error groups, then the outage ends", async () => {
    const r = await cli([
      "demo",
      "outage",
      "--agent",
      "refund",
      "--count",
      "6",
      "--errors",
      "3",
      "--json",
    ]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as {
      runId: string;
      dead: number;
      outageOver: boolean;
      groups: { reason: string; error: string; count: number; href: string }[];
      taskIds: string[];
    };
    expect(out).toMatchObject({ dead: 6, outageOver: true });
    expect(out.groups.map((g) => [g.reason, g.count])).toEqual([
      ["exhausted", 2],
      ["exhausted", 2],
      ["exhausted", 2],
    ]);
    for (const error of OUTAGE_ERRORS.slice(0, 3)) {
      expect(out.groups.map((g) => g.error)).toContain(
        `payments gateway ${error.status}: ${error.message}`,
      );
    }
    expect(out.groups[0]?.href).toMatch(
      /\/dead-letters\?reason=exhausted&fingerprint=.+&agent=refund$/,
    );

    // What the worker wrote: dead, retried to the limit, the first enqueue by the CLI's actor.
    const { rows } = await t.pool.query<{ status: string; attempts: number; actor: string }>(
      `select t.status, t.attempts, e.actor from tasks t
         join ledger_entries e on e.task_id = t.id and e.kind = 'task.enqueued'
        where t.id = any($1::uuid[])`,
      [out.taskIds],
    );
    expect(rows).toHaveLength(6);
    expect(new Set(rows.map((row) => `${row.status} ${row.attempts} ${row.actor}`))).toEqual(
      new Set([`dead 4 ${ACTOR}`]),
    );
    const staged = await t.pool.query(
      "select actor, data from ledger_entries where stream = 'system' and kind = 'demo.staged'",
    );
    expect(staged.rows).toContainEqual({
      actor: ACTOR,
      data: expect.objectContaining({
        what: "outage",
        agent: "refund",
        tasks: 6,
        runId: out.runId,
      }),
    });

    // The payments service answered every refund request with the outage, refunded nothing,
    // and has no outage left: a replay now reaches the API. (An attempt that lost its lease on a
    // loaded machine is aborted before its request and reconciles with a GET the next time, so
    // the creates are counted apart from those checks.)
    const requests = recordedRequestSchema
      .array()
      .parse(demo.receivers.payments.requests())
      .filter((q) => q.params.payment_intent?.includes(out.runId));
    const creates = requests.filter((q) => q.method === "POST");
    expect(creates.length).toBeGreaterThanOrEqual(6 * 3);
    expect(creates.length).toBeLessThanOrEqual(6 * 4);
    expect(creates.filter((q) => q.fault !== "outage" || q.createdRefund)).toEqual([]);
    expect(requests.filter((q) => q.method !== "POST").every((q) => q.fault === null)).toBe(true);
    expect(
      demo.receivers.payments.refunds().filter((r) => r.payment_intent.includes(out.runId)),
    ).toEqual([]);
    expect(await readPaymentsFaults(demo.receivers.paymentsUrl)).toEqual({});

    const human = await cli(["demo", "outage", "--agent", "refund", "--count", "2"]);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(
      /^Staged an outage of the demo payments service \(run \w+\): 2 refunds, now 2 dead\./,
    );
    expect(human.stdout).toContain(
      "  2  exhausted: payments gateway 503: The card network is not responding.",
    );
    expect(human.stdout).toContain("The outage is over");
  });

  it("outage: finds the payments service where a running npm start recorded it (another port than 4242)", async () => {
    const paymentsUrl = demo.receivers.paymentsUrl;
    expect(new URL(paymentsUrl).port).not.toBe("4242");
    const runDir = mkdtempSync(path.join(tmpdir(), "agent-ledger-cli-run-"));
    try {
      // As npm start writes it; this test process stands in for the launcher, so it is live.
      writeRunFile(
        {
          launcher: process.pid,
          url: "http://localhost:3999",
          demo: {
            smtpUrl: "smtp://127.0.0.1:2526",
            paymentsUrl,
            webhooksUrl: "http://127.0.0.1:4344",
          },
        },
        path.join(runDir, "run.json"),
      );
      const env = { PAYMENTS_URL: "", AGENT_LEDGER_DATA_DIR: runDir };
      const r = await cli(["demo", "outage", "--agent", "refund", "--count", "2", "--json"], env);
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      const out = JSON.parse(r.stdout) as { dead: number; groups: { href: string }[] };
      expect(out.dead).toBe(2);
      // The links point at the dashboard npm start printed.
      expect(out.groups[0]?.href).toMatch(/^http:\/\/localhost:3999\/dead-letters\?/);

      // An explicit --payments-url still wins, and the refusal says where the address came from.
      const given = await cli(
        [
          "demo",
          "outage",
          "--agent",
          "refund",
          "--count",
          "2",
          "--payments-url",
          "http://127.0.0.1:2",
        ],
        env,
      );
      expect(given.code).toBe(2);
      expect(given.stderr).toContain(
        "does not answer at http://127.0.0.1:2 (ECONNREFUSED); that address is given by --payments-url.",
      );
    } finally {
      rmSync(runDir, { recursive: true, force: true });
    }
  });

  it("bad-input: N tasks dead on their input, one group per kind of mistake", async () => {
    const r = await cli(["demo", "bad-input", "--count", "4", "--json"]);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as {
      dead: number;
      groups: { reason: string; error: string; count: number }[];
      tasks: { id: string; status: string; fix: string }[];
    };
    expect(out.dead).toBe(4);
    expect(out.groups).toHaveLength(4);
    for (const g of out.groups) {
      expect(g).toMatchObject({ reason: "non_retryable", count: 1 });
      expect(g.error).toMatch(/^invalid task input: (currency|amountCents|orderId): /);
    }
    const { rows } = await t.pool.query<{ n: number }>(
      "select count(*)::int as n from tasks where id = any($1::uuid[]) and status = 'dead' and dead_reason = 'non_retryable'",
      [out.tasks.map((task) => task.id)],
    );
    expect(rows[0]?.n).toBe(4);

    const human = await cli(["demo", "bad-input", "--agent", "invoice-reminder", "--count", "3"]);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain("Staged 3 invoice-reminder tasks with bad input");
    expect(human.stdout).toContain('"Fix the input and replay…"');
  });

  it("refuses bad options with exit 2, saying which option and why, and stages nothing", async () => {
    const before = await taskCount();
    const run = cliOn(t);
    const cases: [string[], RegExp][] = [
      [["demo", "outage", "--agent", "refund"], /--count: is required/],
      [["demo", "outage", "--agent", "refund", "--count", "0"], /--count: must be from 1 to 5000/],
      [
        ["demo", "outage", "--agent", "refund", "--count", "ten"],
        /--count: must be a whole number/,
      ],
      [["demo", "outage", "--agent", "invoice-reminder", "--count", "3"], /outage for refund only/],
      [
        ["demo", "outage", "--agent", "refund", "--count", "3", "--errors", "7"],
        /--errors: must be from 1 to 6/,
      ],
      [
        ["demo", "outage", "--agent", "refund", "--count", "3", "--payments-url", "nope"],
        /--payments-url: must be a URL/,
      ],
      [
        ["demo", "bad-input", "--agent", "mailer", "--count", "3"],
        /--agent: must be one of refund, invoice-reminder/,
      ],
      [["demo", "explode"], /unknown subcommand "explode"/],
    ];
    for (const [args, message] of cases) {
      const r = run(args);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr, args.join(" ")).toMatch(message);
    }
    expect(await taskCount()).toBe(before);
  });

  it("exits 2 and stages nothing when the payments service does not answer", async () => {
    const before = await taskCount();
    const r = await cli(["demo", "outage", "--agent", "refund", "--count", "3"], {
      PAYMENTS_URL: "http://127.0.0.1:2",
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("the demo payments service does not answer at http://127.0.0.1:2");
    expect(r.stderr).toContain("Nothing was staged.");
    expect(await taskCount()).toBe(before);
  });
});

describe("agent-ledger demo without a worker", SLOW, () => {
  it("exits 2 and stages nothing when no live worker runs the agent", async () => {
    const r = cliOn(idle)(["demo", "bad-input", "--count", "2"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("no live worker runs refund");
    expect(r.stderr).toContain("Nothing was staged.");
    const { rows } = await idle.pool.query<{ n: number }>("select count(*)::int as n from tasks");
    expect(rows[0]?.n).toBe(0);
  });
});
