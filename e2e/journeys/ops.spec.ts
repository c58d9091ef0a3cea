// Ops: a customer asks why they got an email. From nothing but their address, /why tells the
// story (the model's decision, the task behind it, the key); then the ledger filtered to that
// task is exported as JSONL and CSV, and the files hold exactly that task's entries. The email is
// sent by the demo's own invoice-reminder agent to the demo mail sink.
import { readFileSync } from "node:fs";
import type { Page } from "@playwright/test";
import { startDemoReceivers } from "../../worker/demo/receivers";
import {
  asRole,
  enqueue,
  expect,
  overdueInvoice,
  randomWord,
  runDemoAgents,
  test,
} from "../fixtures";
import { demoAgents, filterLedger, JOURNEY_VIEWPORT, shot } from "./steps";

test.use({ ...asRole("ops"), viewport: JOURNEY_VIEWPORT });

async function download(page: Page, button: string): Promise<string> {
  const file = page.waitForEvent("download");
  await page.getByRole("button", { name: button, exact: true }).click();
  const path = await (await file).path();
  return readFileSync(path, "utf8");
}

test("ops: finds why an email was sent from its recipient and exports that task's ledger", async ({
  page,
  db,
}) => {
  test.setTimeout(120_000);
  const word = randomWord(8);
  const recipient = `${word}@customer.example`;
  const receivers = await startDemoReceivers();
  let taskId = "";
  let key = "";
  try {
    const { invoice } = demoAgents(receivers, word);
    const invoiceId = overdueInvoice(`inv_${word}_`);
    taskId = await enqueue(db, invoice.name, { invoiceId, customerEmail: recipient });
    await runDemoAgents([invoice], [taskId], ["succeeded"]);
    const sent = receivers.smtp.messages().find((m) => m.to.includes(recipient));
    expect(sent, "the demo mail sink received the reminder").toBeDefined();

    // 1. "Why did I get this?": the recipient, through the form.
    await page.goto("/why");
    await page.getByLabel("Look up by").selectOption("recipient");
    await page.getByLabel("Value", { exact: true }).fill(recipient);
    await page.getByRole("button", { name: "Explain" }).click();
    await expect(page).toHaveURL(`/why?recipient=${encodeURIComponent(recipient)}`);
    const story = page.locator("article[data-effect-key]");
    await expect(story).toHaveCount(1);
    await expect(story.getByRole("heading", { level: 3 })).toContainText("send_email");
    await expect(story.getByRole("region", { name: "Who decided it: the model" })).toContainText(
      `Invoice ${invoiceId} for ${recipient}`,
    );
    key = (await story.getAttribute("data-effect-key")) ?? "";
    expect(sent?.messageId).toBe(`<${key}@agent-ledger.local>`);
    await shot(page, "ops", 1, "why");

    // 2. The task behind it.
    await story.getByTestId("why-task-link").click();
    await expect(page).toHaveURL(new RegExp(`/tasks/${taskId}$`));
    await expect(page.getByTestId("task-callout")).toContainText("Succeeded");
    await shot(page, "ops", 2, "task");
  } finally {
    await receivers.stop();
  }

  // 3. The ledger filtered to that task, exported.
  await filterLedger(page, { "Task id": taskId });
  await expect(page).toHaveURL(new RegExp(`taskId=${taskId}`));
  const { rows } = await db.query<{ id: string; kind: string }>(
    "select id::text, kind from ledger_entries where task_id = $1 order by id desc",
    [taskId],
  );
  expect(rows.map((r) => r.kind)).toEqual(
    expect.arrayContaining(["task.enqueued", "effect.succeeded"]),
  );
  await expect(page.getByTestId("ledger-row")).toHaveCount(rows.length);
  await shot(page, "ops", 3, "ledger-task");

  const jsonl = await download(page, "JSONL");
  await expect(page.getByTestId("export-status")).toHaveText(
    new RegExp(`Exported ${rows.length} entries to ledger-.*\\.jsonl\\.`),
  );
  const lines = jsonl
    .trimEnd()
    .split("\n")
    .map(
      (l) => JSON.parse(l) as { id: number | string; taskId: string; kind: string; hash: string },
    );
  expect(lines.map((l) => String(l.id))).toEqual(rows.map((r) => r.id));
  expect(lines.every((l) => l.taskId === taskId && /^[0-9a-f]{64}$/.test(l.hash))).toBe(true);
  // The send as recorded, in its result's entry: the arguments it was claimed with, and the
  // mail server's Message-ID.
  const sent = JSON.stringify(lines.find((l) => l.kind === "effect.succeeded"));
  expect(sent).toContain(recipient);
  expect(sent).toContain(`${key}@agent-ledger.local`);

  const csv = await download(page, "CSV");
  await expect(page.getByTestId("export-status")).toHaveText(
    new RegExp(`Exported ${rows.length} entries to ledger-.*\\.csv\\.`),
  );
  const records = csv.trimEnd().split("\r\n");
  expect(records[0]).toBe("id,at,stream,seq,kind,actor,task_id,key,summary,data,prev_hash,hash");
  expect(records).toHaveLength(rows.length + 1);
  expect(records.slice(1).every((r) => r.includes(`,task:${taskId},`))).toBe(true);
  expect(records.find((r) => r.includes(",effect.succeeded,"))).toContain(`to: ${recipient}`);
});
