// Ops answers "why was this email sent?" from the ledger explorer, starting from nothing but the
// recipient's address: free text finds the email's entries, the task filter narrows to its
// whole history, and the export of that filter downloads as JSONL and CSV (formulas defused).
// The task is staged as the runtime records one (task, effect, ledger entries), with a subject
// that would run as a spreadsheet formula and markup that must stay text.
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { withTransaction } from "../db/client";
import type { JsonValue } from "../lib/domain/json";
import { insertTask } from "../lib/server/commands/enqueue-task";
import { appendLedger } from "../lib/server/ledger/append-ledger";
import { runLedgerVerifyPass } from "../worker/ledger-verify";
import { asRole, expect, randomWord, test } from "./fixtures";

test.use(asRole("ops"));

const FORMULA_SUBJECT = '=HYPERLINK("http://evil.example","Invoice")';
const MARKUP = '<img src=x onerror="document.title=`owned`">';
/** An API caller's name that a spreadsheet would run. */
const FORMULA_ACTOR = "=2+5+cmd|' /C calc'!A0";

test("ops finds why an email was sent from its recipient and exports that task's ledger", async ({
  page,
  db,
}) => {
  const recipient = `${randomWord()}@customer.example`;
  const key = randomBytes(32).toString("hex");
  const messageId = `<${key}@agent-ledger.local>`;
  const { taskId } = await withTransaction(db, (c) =>
    insertTask(c, {
      agent: "invoice-reminder",
      input: { invoiceId: `inv-${randomWord()}`, note: MARKUP },
      actor: "token:billing",
    }),
  );
  await db.query(
    `insert into effects (key, task_id, step_seq, tool, intent, args, fingerprint, status, result)
     values ($1, $2, 2, 'send_email', $3, $4, $5, 'succeeded', $6)`,
    [
      key,
      taskId,
      { to: recipient },
      { to: recipient, subject: FORMULA_SUBJECT },
      key,
      { to: recipient, messageId },
    ],
  );
  const entry = (
    kind: string,
    data: { [field: string]: JsonValue },
    withKey = true,
    actor = "worker:e2e",
  ) => ({
    kind,
    actor,
    taskId,
    ...(withKey ? { key } : {}),
    data,
  });
  await withTransaction(db, (c) =>
    appendLedger(c, `task:${taskId}`, [
      entry("attempt.started", { attempt: 1, agent: "invoice-reminder" }, false),
      entry("model.called", { step: 1, model: "demo", prompt: MARKUP }, false, FORMULA_ACTOR),
      entry("effect.started", {
        tool: "send_email",
        step: 2,
        attempt: 1,
        args: { to: recipient, subject: FORMULA_SUBJECT },
      }),
      entry("effect.succeeded", {
        tool: "send_email",
        step: 2,
        attempt: 1,
        result: { to: recipient, messageId },
      }),
    ]),
  );
  await runLedgerVerifyPass(db, { settleMs: 0, forceFull: true });

  // 1. From the recipient alone.
  await page.goto("/ledger");
  await expect(page.getByTestId("chain-status")).toContainText(
    /Chain (verified through entry #\d+|verification failed)/,
  );
  await page.getByLabel("Search").fill(recipient);
  await page.getByRole("button", { name: "Filter" }).click();
  await expect(page).toHaveURL(/\/ledger\?q=/);
  const rows = page.getByTestId("ledger-row");
  await expect(rows).toHaveCount(2);
  await expect(rows.first()).toContainText("effect.succeeded");
  await expect(rows.first().getByTestId("entry-summary")).toHaveText(
    `send_email · to: ${recipient} · Message-ID: ${messageId} · step: 2 · attempt: 1`,
  );

  // 2. The data, expanded: escaped text, pretty and raw.
  await rows
    .first()
    .getByRole("button", { name: /Show data of entry/ })
    .click();
  const pretty = page.getByTestId("entry-pretty-json");
  await expect(pretty).toContainText(`"messageId": "<${key}@agent-ledger.local>"`);
  await page.getByRole("button", { name: "Show raw JSON" }).click();
  await expect(page.getByTestId("entry-raw-json")).toContainText(`{"to":"${recipient}"`);
  const downloadEntry = page.waitForEvent("download");
  await page.getByRole("button", { name: "Download entry" }).click();
  const entryFile = await downloadEntry;
  const saved = JSON.parse(readFileSync((await entryFile.path()) as string, "utf8"));
  expect(saved).toMatchObject({ taskId, key, kind: "effect.succeeded" });

  // 3. The whole task: its id from the row, into the task filter, free text cleared.
  await page.getByLabel("Search").fill("");
  await page.getByLabel("Task id").fill(taskId);
  await page.getByRole("button", { name: "Filter" }).click();
  await expect(page).toHaveURL(new RegExp(`taskId=${taskId}`));
  await expect(rows).toHaveCount(5);
  await expect(page.locator("main img")).toHaveCount(0);
  // Markup in the data is text: expand the model call and read it back as written.
  await rows
    .nth(2)
    .getByRole("button", { name: /Show data of entry/ })
    .click();
  await expect(page.getByTestId("entry-pretty-json")).toContainText(MARKUP.replaceAll('"', '\\"'));
  await expect(page.locator("main img")).toHaveCount(0);

  // Back restores the search and its field; forward the task filter.
  await page.goBack();
  await expect(page.getByLabel("Search")).toHaveValue(recipient);
  await expect(page.getByLabel("Task id")).toHaveValue("");
  await expect(rows).toHaveCount(2);
  await page.goForward();
  await expect(page.getByLabel("Task id")).toHaveValue(taskId);
  await expect(rows).toHaveCount(5);

  // Live: a new entry of this task appears on its own, and the expanded row stays open.
  await rows
    .nth(2)
    .getByRole("button", { name: /Show data of entry/ })
    .click();
  await expect(page.getByTestId("ledger-row-data")).toHaveCount(1);
  await withTransaction(db, (c) =>
    appendLedger(
      c,
      `task:${taskId}`,
      entry("step.completed", { step: 2, kind: "tool", name: "send_email" }, false),
    ),
  );
  await expect(rows).toHaveCount(6, { timeout: 15_000 });
  await expect(rows.first()).toContainText("step.completed");
  await expect(page.getByTestId("ledger-row-data")).toHaveCount(1);
  await expect(page.getByTestId("entry-pretty-json")).toContainText("prompt");

  await page.screenshot({ path: "docs/screenshots/ledger.png", fullPage: true });

  // 4. Export that filter: JSONL, every line an entry of this task.
  const jsonlDownload = page.waitForEvent("download");
  await page.getByRole("button", { name: "JSONL" }).click();
  const jsonl = readFileSync((await (await jsonlDownload).path()) as string, "utf8");
  await expect(page.getByTestId("export-status")).toHaveText(
    /Exported 6 entries to ledger-.*\.jsonl\./,
  );
  const lines = jsonl
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l));
  expect(lines).toHaveLength(6);
  expect(lines.every((l) => l.taskId === taskId && /^[0-9a-f]{64}$/.test(l.hash))).toBe(true);
  expect(lines.map((l) => l.kind)).toEqual([
    "step.completed",
    "effect.succeeded",
    "effect.started",
    "model.called",
    "attempt.started",
    "task.enqueued",
  ]);

  // CSV: the formula subject arrives as text, no cell starts a formula.
  const csvDownload = page.waitForEvent("download");
  await page.getByRole("button", { name: "CSV" }).click();
  const csv = readFileSync((await (await csvDownload).path()) as string, "utf8");
  await expect(page.getByTestId("export-status")).toHaveText(
    /Exported 6 entries to ledger-.*\.csv\./,
  );
  const records = csv.trimEnd().split("\r\n");
  expect(records[0]).toBe("id,at,stream,seq,kind,actor,task_id,key,summary,data,prev_hash,hash");
  expect(records).toHaveLength(7);
  // The actor's cell is defused; no cell, quoted or not, starts with a formula character.
  expect(csv).toContain(`,'${FORMULA_ACTOR},`);
  expect(csv.match(/(^|,|\r\n)"?[=+\-@\t]/g) ?? []).toEqual([]);
  expect(csv).toContain("HYPERLINK");
});

test("a kind prefix picks every kind under it, and the kind field offers the kinds that exist", async ({
  page,
}) => {
  await page.goto("/ledger?kind=effect.*");
  await expect(page.getByLabel("Kind")).toHaveValue("effect.*");
  const kinds = await page.getByTestId("ledger-row").locator("td:nth-child(3)").allTextContents();
  expect(kinds.length).toBeGreaterThan(0);
  expect(kinds.every((k) => k.startsWith("effect."))).toBe(true);
  const offered = await page
    .locator("#ledger-kinds option")
    .evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value));
  expect(offered).toEqual(expect.arrayContaining(["effect.*", "task.*", "task.enqueued"]));
});
