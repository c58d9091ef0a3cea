// What the role journeys share: staging rows as the runtime leaves them, the demo agents on the
// demo receivers, driving the ledger filter, and saving screenshots at the docs' size. (What
// the top-level specs share with them lives in ../fixtures: journeys import e2e, never back.)
import { mkdirSync } from "node:fs";
import type { Page } from "@playwright/test";
import type pg from "pg";
import { deriveEffectKey, payloadFingerprint } from "../../lib/domain/hash";
import type { DeadReason, TaskStatus } from "../../lib/domain/task-states";
import { parseEnv } from "../../lib/env";
import type { Agent } from "../../lib/sdk/define";
import { createAgents } from "../../worker/agents";
import type { DemoReceivers } from "../../worker/demo/receivers";
import { expect } from "../fixtures";

/** The demo people, as the ledger names them. */
export const REVIEWER = "user:reviewer@example.com";
export const OPS = "user:ops@example.com";
export const ADMIN = "user:admin@example.com";

/** The size of the screenshots in docs/screenshots. */
export const JOURNEY_VIEWPORT = { width: 1280, height: 800 };

/** docs/screenshots/journey-<role>-<n>-<what>.png, of what is on screen (not the whole page). */
export async function shot(page: Page, role: string, n: number, what: string): Promise<void> {
  mkdirSync("docs/screenshots", { recursive: true });
  await page.screenshot({ path: `docs/screenshots/journey-${role}-${n}-${what}.png` });
}

/** The task's ledger entries of one kind, in order. */
export async function entriesOf(db: pg.Pool, taskId: string, kind: string) {
  const { rows } = await db.query<{ id: string; actor: string; data: Record<string, unknown> }>(
    "select id::text, actor, data from ledger_entries where task_id = $1 and kind = $2 order by seq",
    [taskId, kind],
  );
  return rows;
}

export async function statusOf(db: pg.Pool, taskId: string): Promise<TaskStatus | undefined> {
  const { rows } = await db.query<{ status: TaskStatus }>(
    "select status from tasks where id = $1",
    [taskId],
  );
  return rows[0]?.status;
}

/**
 * `n` dead tasks of `agent`, dead-lettered for `reason` by the same provider error (each with
 * its own request id, so only the error fingerprint groups them), each with a failed `notify` effect at step 1:
 * one error group whose replay would act `n` times and moves no money.
 */
export async function stageDeadGroup(
  db: pg.Pool,
  agent: string,
  message: string,
  n: number,
  reason: DeadReason = "non_retryable",
): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `insert into tasks (agent, input, status, dead_reason, attempts, last_error, created_by)
     select $1, jsonb_build_object('orderId', 'ord-' || g), 'dead', $4, 3,
            jsonb_build_object('message', $2::text || ' (req_' || g || 'x' || g || ')'), 'e2e'
     from generate_series(1, $3) as g returning id`,
    [agent, message, n, reason],
  );
  const ids = rows.map((r) => r.id);
  await db.query(
    `insert into steps (task_id, seq, kind, name, status, attempt)
     select id, 1, 'tool', 'notify', 'started', 3 from unnest($1::uuid[]) as id`,
    [ids],
  );
  const intents = ids.map((id) => ({ order: id }));
  await db.query(
    `insert into effects (key, task_id, step_seq, tool, intent, args, fingerprint, status)
     select k, id, 1, 'notify', i, i, f, 'failed'
     from unnest($1::text[], $2::uuid[], $3::jsonb[], $4::text[]) as x(k, id, i, f)`,
    [
      intents.map((i) => deriveEffectKey(i.order, "notify", i)),
      ids,
      intents.map((i) => JSON.stringify(i)),
      intents.map((i) => payloadFingerprint(i)),
    ],
  );
  return ids;
}

/**
 * The demo's invoice-reminder and refund agents on the demo receivers, renamed with `word` so a
 * spec's worker claims only the tasks it enqueued and never the seeded demo's.
 */
export function demoAgents(
  receivers: Pick<DemoReceivers, "smtpUrl" | "paymentsUrl">,
  word: string,
): { invoice: Agent; refund: Agent } {
  const agents = createAgents(
    parseEnv({ SMTP_URL: receivers.smtpUrl, PAYMENTS_URL: receivers.paymentsUrl }),
  );
  const invoice = agents.find((a) => a.name === "invoice-reminder");
  const refund = agents.find((a) => a.name === "refund");
  if (!invoice || !refund) throw new Error("the demo agents are missing");
  return {
    invoice: { ...invoice, name: `e2e-${word}-invoice` },
    refund: { ...refund, name: `e2e-${word}-refund` },
  };
}

export type LedgerFilter = Partial<
  Record<"Search" | "Kind" | "Agent" | "Tool" | "Actor" | "Task id", string>
>;

/** Fills /ledger's filter form as a person would (fields left out are cleared) and submits it. */
export async function filterLedger(page: Page, filter: LedgerFilter): Promise<void> {
  if (new URL(page.url()).pathname !== "/ledger") await page.goto("/ledger");
  const form = page.locator('search[aria-label="Filter the ledger"]');
  for (const label of ["Search", "Kind", "Agent", "Tool", "Actor", "Task id"] as const) {
    await form.getByLabel(label, { exact: true }).fill(filter[label] ?? "");
  }
  const before = page.url();
  await form.getByRole("button", { name: "Filter" }).click();
  await expect.poll(() => page.url()).not.toBe(before);
}

/** The /ledger row of the entry of `kind` in task `taskId`'s stream. */
export function ledgerRow(page: Page, taskId: string, kind: string) {
  return page
    .getByTestId("ledger-row")
    .filter({ hasText: `task:${taskId}` })
    .filter({ has: page.getByRole("cell", { name: kind, exact: true }) });
}
