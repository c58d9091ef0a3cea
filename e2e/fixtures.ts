// The e2e `test`: Playwright's, plus a pool on the database the app under test is using, so a
// spec can write a known row and check the screen shows it.
import { test as base } from "@playwright/test";
import type pg from "pg";
import { createPool, withTransaction } from "../db/client";
import { appendLedger } from "../lib/server/ledger/append-ledger";
import { readE2eDatabase } from "./settings";

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

/** Lower-case letters only, so it fits ledger kinds and stream names alike. */
export function randomWord(length = 10): string {
  const letters = "abcdefghijklmnopqrstuvwxyz";
  let out = "";
  for (let i = 0; i < length; i++) out += letters[Math.floor(Math.random() * letters.length)];
  return out;
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
