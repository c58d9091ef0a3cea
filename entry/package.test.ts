// The package as a team gets it: `npm pack`, installed into a copy of examples/support-desk
// outside this repository (its own lockfile, no workspace links, no tsx), type-checked and
// built with its own tsc, then run with plain node: its worker runs the AI SDK agent loop (two
// tools, their results read, a third), its MCP tool and its money tool with an approval; the
// dashboard from the installed package shows the agent, its tools and the MCP server on its
// Agents screen, two reviewers approve the parked refund there and it acts once; and the
// example's crash proof kills its worker 20 times mid-effect with 0 duplicate refunds.
// Needs the dashboard's build (`npm run build`, as npm test's build stage does before vitest):
// skipped here without one, a failure on CI.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { freePort } from "../db/embedded";
import { env } from "../lib/env";
import { createTestDatabase, type TestDatabase } from "../worker/testing/test-database";

const ROOT = path.join(import.meta.dirname, "..");
const EXAMPLE = path.join(ROOT, "examples", "support-desk");
const built = existsSync(path.join(ROOT, "dist", "dashboard", "server.js"));
const ci = Boolean(env().CI);
if (!built && ci) throw new Error("no dist/dashboard on CI: the build stage must run first");

const serverUrl = inject("testCluster").superUrl;
const work = mkdtempSync(path.join(tmpdir(), "agent-ledger-package-"));
const project = path.join(work, "support-desk");
const children: ChildProcess[] = [];
let db: TestDatabase;
/** What the README reports: the tarball, the install, the CLI. */
const figures: Record<string, number | string> = {};

function run(
  cmd: string,
  args: string[],
  opts: { cwd: string; env?: Record<string, string>; input?: string },
) {
  const started = Date.now();
  const r = spawnSync(cmd, args, {
    cwd: opts.cwd,
    encoding: "utf8",
    input: opts.input,
    env: { ...process.env, ...opts.env },
    timeout: 600_000,
  });
  const ms = Date.now() - started;
  if (r.status !== 0) {
    throw new Error(`${cmd} ${args.join(" ")} exited ${r.status}\n${r.stdout}\n${r.stderr}`);
  }
  return { stdout: r.stdout, ms };
}

/** A long-running process of the example; stopped after the file. */
function start(
  args: string[],
  extra: Record<string, string>,
): { child: ChildProcess; out: () => string } {
  let out = "";
  const child = spawn(process.execPath, args, {
    cwd: project,
    env: { ...process.env, LOG_LEVEL: "warn", ...extra },
  });
  child.stdout?.on("data", (c) => {
    out += c;
  });
  child.stderr?.on("data", (c) => {
    out += c;
  });
  children.push(child);
  return { child, out: () => out };
}

async function until<T>(what: string, fn: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await fn().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const example = (script: string) => path.join(project, "dist", script);
/** Set by the worker's test: the example's shop, and the refund that parked for approval. */
let shopUrl = "";
let bigTaskId = "";
const cli = path.join(project, "node_modules", ".bin", "agent-ledger");

beforeAll(async () => {
  if (!built) return;
  const packed = run("npm", ["pack", "--json", "--pack-destination", work], { cwd: ROOT });
  // prepack's own output (tsup's) comes first on stdout; npm's JSON is the last "[" line on.
  const json = packed.stdout.slice(packed.stdout.lastIndexOf("\n[\n") + 1);
  const [info] = JSON.parse(json) as {
    filename: string;
    size: number;
    unpackedSize: number;
  }[];
  if (!info) throw new Error("npm pack printed no package");
  figures.packMs = packed.ms;
  figures.tarballBytes = info.size;
  figures.unpackedBytes = info.unpackedSize;
  cpSync(EXAMPLE, project, {
    recursive: true,
    filter: (src) => !/[/\\](node_modules|dist)$|\.jsonl$/.test(src),
  });
  run("npm", ["pkg", "set", `dependencies.agent-ledger=file:${path.join(work, info.filename)}`], {
    cwd: project,
  });
  const installed = run("npm", ["install", "--no-audit", "--no-fund"], { cwd: project });
  figures.installMs = installed.ms;
  db = await createTestDatabase({ serverUrl });
}, 900_000);

afterAll(async () => {
  // SIGTERM first: the dashboard command relays it to the server it started (a SIGKILL would
  // leave that server running); what has not stopped 5 s later is killed.
  const running = children.filter((c) => c.exitCode === null && c.signalCode === null);
  for (const child of running) child.kill("SIGTERM");
  await Promise.all(
    running.map(
      (child) =>
        new Promise<void>((resolve) => {
          const hard = setTimeout(() => child.kill("SIGKILL"), 5_000);
          child.once("exit", () => {
            clearTimeout(hard);
            resolve();
          });
          if (child.exitCode !== null || child.signalCode !== null) resolve();
        }),
    ),
  );
  await db?.drop();
  rmSync(work, { recursive: true, force: true });
  console.log(`package figures: ${JSON.stringify(figures)}`);
});

describe.skipIf(!built)("the packed package in a project of its own", () => {
  it("installs from the tarball with its own lockfile, no links and no tsx", () => {
    expect(existsSync(path.join(project, "package-lock.json"))).toBe(true);
    const installed = path.join(project, "node_modules", "agent-ledger");
    expect(lstatSync(installed).isSymbolicLink()).toBe(false);
    expect(existsSync(path.join(installed, "dist", "index.d.ts"))).toBe(true);
    expect(existsSync(path.join(installed, "scripts"))).toBe(false);
    expect(existsSync(path.join(project, "node_modules", "tsx"))).toBe(false);
  });

  it("type-checks and builds with the example's own tsc: every misuse in type-errors.ts is an error", () => {
    // An unused @ts-expect-error fails the build: each misuse must really be a type error.
    run(path.join(project, "node_modules", ".bin", "tsc"), ["-p", "."], { cwd: project });
    expect(readFileSync(path.join(project, "src", "type-errors.ts"), "utf8")).toContain(
      "@ts-expect-error amountCents must be a number",
    );
    // And the types are the package's, not `any`: offering the model a tool the agent lacks fails.
    const agents = path.join(project, "src", "agents.ts");
    const source = readFileSync(agents, "utf8");
    writeFileSync(
      agents,
      source.replace(
        'tools: ["lookup_order", "tickets_create_ticket", "refund"]',
        'tools: ["lookup_order", "tickets_create_ticket", "refund", "wire_money"]',
      ),
    );
    const probe = spawnSync(
      path.join(project, "node_modules", ".bin", "tsc"),
      ["--noEmit", "-p", "."],
      { cwd: project, encoding: "utf8" },
    );
    writeFileSync(agents, source);
    expect(probe.status).not.toBe(0);
    expect(probe.stdout).toMatch(/"wire_money"' is not assignable/);
  });

  it("answers the CLI from the installed package with plain node", () => {
    const help = run(process.execPath, [cli, "--help"], { cwd: project });
    expect(help.stdout).toMatch(/^agent-ledger <command>/);
    expect(help.stdout).toMatch(/^ {2}dashboard /m);
    figures.helpMs = help.ms;
  });

  it("runs the AI SDK loop, the MCP tool and the money tool with an approval in its own worker", async () => {
    const shop = start([example("shop.js")], { PORT: "0" });
    shopUrl = await until("the shop", async () => shop.out().match(/listening on (\S+)/)?.[1]);
    const dbEnv = { DATABASE_URL: db.url, SHOP_URL: shopUrl, TICKETS_FILE: "run.tickets.jsonl" };
    const first = JSON.parse(
      run(process.execPath, [example("enqueue.js"), "A-7", "charged twice"], {
        cwd: project,
        env: dbEnv,
      }).stdout,
    ) as { taskId: string };
    const started = Date.now();
    const worker = start([example("worker.js")], dbEnv);
    await until("the first claim", async () => {
      const { rows } = await db.pool.query("select status from tasks where id = $1", [
        first.taskId,
      ]);
      return rows[0]?.status === "queued" ? undefined : true;
    });
    figures.startToFirstClaimMs = Date.now() - started;

    const cliEnqueue = run(
      process.execPath,
      [
        cli,
        "enqueue",
        "--agent",
        "support-refund",
        "--input",
        '{"orderId":"BIG-1","message":"refund"}',
        "--json",
      ],
      { cwd: project, env: dbEnv },
    );
    figures.cliEnqueueMs = cliEnqueue.ms;
    bigTaskId = (JSON.parse(cliEnqueue.stdout) as { taskId: string }).taskId;

    const done = await until("A-7 to succeed", async () => {
      const { rows } = await db.pool.query("select status, result from tasks where id = $1", [
        first.taskId,
      ]);
      return rows[0]?.status === "succeeded" ? rows[0].result : undefined;
    });
    expect(done).toEqual({
      answer: "Your order A-7 is refunded; the ticket has the details.",
      turns: 3,
      tools: ["lookup_order", "tickets_create_ticket", "refund"],
    });
    const { rows: steps } = await db.pool.query(
      "select kind, name from journal_steps where task_id = $1 order by seq",
      [first.taskId],
    );
    expect(steps.map((s) => `${s.kind}:${s.name}`)).toEqual([
      "model:turn 1",
      "tool:lookup_order",
      "tool:tickets_create_ticket",
      "model:turn 2",
      "tool:refund",
      "model:turn 3",
    ]);
    // Above 1,000.00 the refund waits for people: it parks before the shop hears of it.
    await until("BIG-1 to park", async () => {
      const { rows } = await db.pool.query("select status from tasks where id = $1", [bigTaskId]);
      return rows[0]?.status === "awaiting_approval" ? true : undefined;
    });
    const stats = (await (await fetch(`${shopUrl}/_stats`)).json()) as Record<string, number>;
    expect(stats).toMatchObject({ refundsPerformed: 1, duplicateRefunds: 0 });
    worker.child.kill("SIGTERM");
    await until("the worker to stop on SIGTERM", async () =>
      worker.child.exitCode !== null ? true : undefined,
    );
    expect(worker.child.exitCode).toBe(0);
  });

  it("shows the agent, its tools and the MCP server on the dashboard of the installed package, where two reviewers approve the parked refund", async () => {
    const port = await freePort();
    const dashEnv = {
      DATABASE_URL: db.url,
      AUTH_SECRET: "a-test-secret-of-at-least-thirty-two-characters",
      PORT: String(port),
    };
    const dashboard = start([cli, "dashboard", "--port", String(port)], dashEnv);
    await until(
      "the dashboard",
      async () => ((await fetch(`http://127.0.0.1:${port}/api/health`)).ok ? true : undefined),
      120_000,
    ).catch((err) => {
      throw new Error(`${(err as Error).message}\n${dashboard.out()}`);
    });
    const base = `http://127.0.0.1:${port}`;
    const tokenFor = (name: string, scopes: string) =>
      (
        JSON.parse(
          run(
            process.execPath,
            [cli, "tokens", "create", "--name", name, "--scopes", scopes, "--json"],
            { cwd: project, env: dashEnv },
          ).stdout,
        ) as { token: string }
      ).token;
    const token = tokenFor("pkg", "tasks:read,ledger:read,payloads:read");
    const api = async (p: string, as = token, body?: unknown) => {
      const res = await fetch(`${base}/api/v1${p}`, {
        method: body === undefined ? "GET" : "POST",
        headers: {
          authorization: `Bearer ${as}`,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      if (res.status !== 200) throw new Error(`${p}: ${res.status} ${await res.text()}`);
      return res.json();
    };
    const { agents } = (await api("/agents")) as {
      agents: { name: string; tools: { name: string; money: boolean; source: unknown }[] }[];
    };
    const agent = agents.find((a) => a.name === "support-refund");
    expect(agent?.tools.map((t) => t.name).sort()).toEqual([
      "lookup_order",
      "refund",
      "tickets_create_ticket",
    ]);
    expect(agent?.tools.find((t) => t.name === "refund")?.money).toBe(true);
    expect(agent?.tools.find((t) => t.name === "tickets_create_ticket")?.source).toMatchObject({
      kind: "mcp",
      server: "tickets",
    });
    const { rows } = await db.pool.query("select id from tasks where status = 'succeeded' limit 1");
    const detail = JSON.stringify(await api(`/tasks/${rows[0].id}`));
    expect(detail).toContain("effect.succeeded");
    expect(detail).toContain("model.called");

    // The Agents screen, as a person signed in to the installed dashboard reads it.
    const password = "a-reviewer-password-1234";
    run(
      process.execPath,
      [cli, "users", "add", "--email", "rev@example.com", "--role", "reviewer", "--password-stdin"],
      { cwd: project, env: dashEnv, input: `${password}\n` },
    );
    const signIn = await fetch(`${base}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: base },
      body: JSON.stringify({ email: "rev@example.com", password }),
    });
    expect(signIn.status).toBe(200);
    const cookie = signIn.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    const page = await fetch(`${base}/agents`, { headers: { cookie } });
    expect(page.status).toBe(200);
    // React separates adjacent text with <!-- -->: read the text as a browser shows it.
    const html = (await page.text()).replaceAll("<!-- -->", "");
    for (const text of [
      "support-refund",
      "lookup_order",
      "tickets_create_ticket",
      "MCP · tickets",
      "Moves money · two reviewers",
      "Needs approval",
      "No live worker",
      "Stopped",
    ]) {
      expect(html, text).toContain(text);
    }

    // The refund above the threshold moves money: two different reviewers approve it here.
    const { version } = ((await api(`/tasks/${bigTaskId}`)) as { task: { version: number } }).task;
    const first = (await api(
      `/tasks/${bigTaskId}/approve`,
      tokenFor("reviewer-a", "tasks:read,approvals:decide"),
      { version },
    )) as { version: number; waitingFor: unknown };
    expect(first.waitingFor).toMatchObject({ kind: "approval" });
    const second = (await api(
      `/tasks/${bigTaskId}/approve`,
      tokenFor("reviewer-b", "tasks:read,approvals:decide"),
      { version: first.version },
    )) as { waitingFor: unknown };
    expect(second.waitingFor).toBeNull();
    dashboard.child.kill("SIGTERM");
  }, 200_000);

  it("acts on the approved refund once, in a worker started again", async () => {
    const worker = start([example("worker.js")], {
      DATABASE_URL: db.url,
      SHOP_URL: shopUrl,
      TICKETS_FILE: "run.tickets.jsonl",
    });
    await until("BIG-1 to succeed", async () => {
      const { rows } = await db.pool.query("select status from tasks where id = $1", [bigTaskId]);
      return rows[0]?.status === "succeeded" ? true : undefined;
    });
    const stats = (await (await fetch(`${shopUrl}/_stats`)).json()) as Record<string, number>;
    expect(stats).toMatchObject({ refundsPerformed: 2, duplicateRefunds: 0 });
    const { rows } = await db.pool.query<{ kind: string; actor: string }>(
      `select kind, actor from ledger_entries
        where task_id = $1 and kind in ('review.first_approved', 'review.approved') order by id`,
      [bigTaskId],
    );
    expect(rows).toEqual([
      { kind: "review.first_approved", actor: "token:reviewer-a" },
      { kind: "review.approved", actor: "token:reviewer-b" },
    ]);
    worker.child.kill("SIGTERM");
  });

  it("survives 20 SIGKILLs of its worker mid-effect with 0 duplicate refunds (its own crash proof)", () => {
    const out = run(process.execPath, [example("crash.js")], {
      cwd: project,
      env: { TEST_DATABASE_URL: serverUrl, CRASH_KILLS: "20", CRASH_TASKS: "40" },
    });
    const result = JSON.parse(out.stdout.trim().split("\n").at(-1) ?? "{}") as {
      kills: number;
      statuses: Record<string, number>;
      shop: { refundsPerformed: number; duplicateRefunds: number; refundRequests: number };
    };
    expect(result.kills).toBeGreaterThanOrEqual(20);
    expect(result.statuses).toEqual({ succeeded: 40 });
    expect(result.shop.duplicateRefunds).toBe(0);
    expect(result.shop.refundsPerformed).toBe(40);
    figures.crashKills = result.kills;
    figures.crashRefundRequests = result.shop.refundRequests;
    // Twenty kills and restarts of a process that loads the package: about 30 s on a quiet
    // machine, past a minute on a busy one.
  }, 180_000);
});
