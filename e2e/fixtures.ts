// The e2e `test`: Playwright's, plus a pool on the database the app under test is using, so a
// spec can write a known row and check the screen shows it. Pages start signed in as admin (see
// playwright.config.ts); `test.use(asRole("ops"))` or `test.use(ANONYMOUS)` changes that.
import { type Browser, test as base, expect as check, type Page } from "@playwright/test";
import type pg from "pg";
import { z } from "zod";
import { createPool, withTransaction } from "../db/client";
import { operator, type Role } from "../lib/domain/access";
import type { TaskStatus } from "../lib/domain/task-states";
import { type Agent, defineAgent, defineTool } from "../lib/sdk/define";
import type { ModelClient } from "../lib/sdk/model";
import { insertTask } from "../lib/server/commands/enqueue-task";
import { createUser } from "../lib/server/commands/users";
import { appendLedger } from "../lib/server/ledger/append-ledger";
import { createDemoModel } from "../worker/agents/demo-model";
import { lookUpInvoice } from "../worker/agents/invoice-reminder";
import { startWorker } from "../worker/runtime/worker";
import { authStateFile, readE2eDatabase } from "./settings";

type Fixtures = { db: pg.Pool };

export const test = base.extend<object, Fixtures>({
  db: [
    // biome-ignore lint/correctness/noEmptyPattern: Playwright requires a destructuring pattern here
    async ({}, use) => {
      const pool = createPool(readE2eDatabase().appUrl, {
        max: 4,
        applicationName: "agent-ledger-e2e",
      });
      await use(pool);
      await pool.end();
    },
    { scope: "worker" },
  ],
});

export { expect } from "@playwright/test";

/** `test.use(asRole("reviewer"))`: the spec's pages start signed in as that demo role. */
export function asRole(role: Role): { storageState: string } {
  return { storageState: authStateFile(role) };
}

/** `test.use(ANONYMOUS)`: no cookies at all. */
export const ANONYMOUS = { storageState: { cookies: [], origins: [] } };

export const SESSION_COOKIE = "agent-ledger.session_token";

/**
 * Fills and submits the sign-in form the page is showing, and waits for the server's answer, so
 * a later fill cannot race the form reset that follows it.
 */
export async function signInThroughForm(page: Page, email: string, password: string) {
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  const answered = page.waitForResponse(
    (r) => r.request().method() === "POST" && new URL(r.url()).pathname === "/sign-in",
  );
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await answered;
}

/** A person of `role` no other spec knows, so locking or disabling them touches nothing else. */
export async function createE2eUser(
  db: pg.Pool,
  role: Role,
): Promise<{ id: string; email: string; password: string }> {
  const email = `e2e-${randomWord()}@example.com`;
  const password = `pw-${randomWord(16)}`;
  const created = await createUser(db, operator("system:e2e"), { email, role, password });
  if (!created.ok) throw new Error(`could not create ${email}: ${created.message}`);
  return { id: created.value.id, email, password };
}

/** Lower-case letters only, so it fits ledger kinds and stream names alike. */
export function randomWord(length = 10): string {
  const letters = "abcdefghijklmnopqrstuvwxyz";
  let out = "";
  for (let i = 0; i < length; i++) out += letters[Math.floor(Math.random() * letters.length)];
  return out;
}

/**
 * An agent in the catalog with one tool that does nothing special (no money, no approval), as
 * a worker would publish it, and optionally the rate limit its code declares; its agent never runs.
 */
export async function publishLoneTool(
  db: pg.Pool,
  agent: string,
  tool: string,
  opts: { rateLimit?: { limit: number; periodMs: number; keyed: boolean }; by?: string } = {},
): Promise<void> {
  const declared = {
    name: tool,
    money: false,
    providerIdempotent: false,
    requiresApproval: false,
    sensitive: [],
    ...(opts.rateLimit ? { rateLimit: opts.rateLimit } : {}),
  };
  await db.query(
    `insert into agent_catalog (name, input_schema, tools, published_by) values ($1, '{}', $2, $3)`,
    [agent, JSON.stringify([declared]), opts.by ?? "e2e"],
  );
}

export async function countTasks(db: pg.Pool, where = "true"): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `select count(*)::int as n from tasks where ${where}`,
  );
  return rows[0]?.n ?? 0;
}

export async function insertDeadTask(
  db: pg.Pool,
  reason: string,
  message: string,
): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `insert into tasks (agent, input, status, dead_reason, attempts, last_error, created_by)
     values ('e2e-agent', '{}'::jsonb, 'dead', $1, 3, jsonb_build_object('message', $2::text), 'e2e')
     returning id`,
    [reason, message],
  );
  const id = rows[0]?.id;
  if (!id) throw new Error("insert returned no id");
  return id;
}

export async function appendEntries(
  db: pg.Pool,
  stream: string,
  entries: { kind: string; actor: string; data?: unknown }[],
): Promise<number[]> {
  const appended = await withTransaction(db, (client) => appendLedger(client, stream, entries));
  return appended.map((e) => e.id);
}

/** Enqueues a task the way the API does, opening its ledger stream. */
export async function enqueue(
  db: pg.Pool,
  agent: string,
  input: unknown,
  policy?: Record<string, unknown>,
): Promise<string> {
  const { taskId } = await withTransaction(db, (client) =>
    insertTask(client, { agent, input, policy, actor: "e2e" }),
  );
  return taskId;
}

/**
 * Runs `agents` on a real worker until each task in `ids` reaches one of `statuses`, so a spec
 * sees exactly the rows the runtime writes. The worker claims only these agents' tasks.
 */
export async function runTasks(
  agents: readonly Agent[],
  ids: readonly string[],
  statuses: readonly TaskStatus[],
  timeoutMs = 20_000,
  /** For agents that call ctx.model (a scripted model, say). */
  model?: ModelClient,
): Promise<void> {
  const pool = createPool(readE2eDatabase().appUrl, { max: 6, applicationName: "e2e-worker" });
  const worker = await startWorker({
    pool,
    agents,
    model,
    concurrency: 4,
    leaseMs: 5_000,
    pollMs: 50,
    log: () => {},
  });
  try {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { rows } = await pool.query<{ id: string; status: TaskStatus }>(
        "select id, status from tasks where id = any($1::uuid[])",
        [ids],
      );
      if (rows.length === ids.length && rows.every((r) => statuses.includes(r.status))) return;
      if (Date.now() > deadline) {
        throw new Error(`tasks did not reach ${statuses.join("/")}: ${JSON.stringify(rows)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    await worker.stop(1_000);
    await pool.end();
  }
}

/** Refunds above this need a person's approval. */
export const E2E_APPROVAL_THRESHOLD_CENTS = 10_000;

/**
 * A refund agent like the example one, run by a real worker in the spec's process. Its tool
 * returns a provider token marked sensitive: the ledger gets it redacted, the journal does not.
 */
export function refundAgent(name: string) {
  const issueRefund = defineTool({
    name: "issue_refund",
    input: z.object({ orderId: z.string(), amountCents: z.number().int() }),
    intent: (a) => ({ orderId: a.orderId }),
    sensitive: ["providerToken"],
    requiresApproval: (a) => a.amountCents > E2E_APPROVAL_THRESHOLD_CENTS,
    execute: async (a, { idempotencyKey }) => ({
      refundId: `re_${a.orderId}`,
      amountCents: a.amountCents,
      providerToken: `tok_${idempotencyKey.slice(0, 16)}`,
    }),
  });
  return defineAgent({
    name,
    input: z.object({
      orderId: z.string(),
      amountCents: z.number().int(),
      failAfterRefund: z.boolean().optional(),
    }),
    tools: { issue_refund: issueRefund },
    run: async (ctx, input) => {
      const order = await ctx.step("look-up-order", async () => ({
        orderId: input.orderId,
        amountCents: input.amountCents,
      }));
      const refund = await ctx.tool("issue_refund", order);
      if (input.failAfterRefund) throw new Error("ledger export failed after the refund");
      return { refundId: refund.refundId };
    },
  });
}

/** A browser context signed in through the HTTP sign-in endpoint (a second person, say). */
export async function signedIn(browser: Browser, baseURL: string, email: string, password: string) {
  const context = await browser.newContext({ baseURL, storageState: { cookies: [], origins: [] } });
  const response = await context.request.post("/api/auth/sign-in/email", {
    data: { email, password },
  });
  check(response.status()).toBe(200);
  return context;
}

/** An invoice id the demo's invoice book has overdue, so the reminder agent sends an email. */
export function overdueInvoice(prefix: string): string {
  for (let i = 0; ; i++) if (lookUpInvoice(`${prefix}${i}`).daysOverdue > 0) return `${prefix}${i}`;
}

/** Runs the agents with the demo's scripted model until every task reaches one of `statuses`. */
export async function runDemoAgents(
  agents: Agent[],
  ids: string[],
  statuses: TaskStatus[],
  opts: { callbacks?: { secret: string; baseUrl: string } } = {},
) {
  const pool = createPool(readE2eDatabase().appUrl, { max: 6, applicationName: "e2e-demo-worker" });
  const worker = await startWorker({
    pool,
    agents,
    model: createDemoModel(),
    concurrency: 4,
    leaseMs: 5_000,
    pollMs: 50,
    log: () => {},
    callbacks: opts.callbacks,
  });
  try {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const { rows } = await pool.query<{ status: TaskStatus }>(
        "select status from tasks where id = any($1::uuid[])",
        [ids],
      );
      if (rows.length === ids.length && rows.every((r) => statuses.includes(r.status))) return;
      if (Date.now() > deadline) throw new Error(`tasks stuck: ${JSON.stringify(rows)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    await worker.stop(1_000);
    await pool.end();
  }
}

/** The page background's lightness (0–1), from the colour the browser actually paints. */
export async function paintedLightness(page: Page): Promise<number> {
  return page.evaluate(() => {
    const canvas = document.createElement("canvas");
    canvas.width = 1;
    canvas.height = 1;
    const ctx = canvas.getContext("2d");
    if (!ctx) throw new Error("no canvas");
    ctx.fillStyle = getComputedStyle(document.body).backgroundColor;
    ctx.fillRect(0, 0, 1, 1);
    const [r = 0, g = 0, b = 0] = ctx.getImageData(0, 0, 1, 1).data;
    return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
  });
}
