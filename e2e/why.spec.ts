// "Why did it send that?" in the browser, signed in as ops: the demo agents send a real email and
// a real refund to the demo receivers (run in this process, under names only this spec uses),
// then the page is asked about them by recipient, Message-ID and refund id, as a person would.
import type pg from "pg";
import { ROLE_SCOPES, ROLES } from "../lib/domain/access";
import { parseEnv } from "../lib/env";
import { HIDDEN_PAYLOAD } from "../lib/server/queries/payloads";
import { createAgents } from "../worker/agents";
import { type DemoReceivers, startDemoReceivers } from "../worker/demo/receivers";
import {
  asRole,
  enqueue,
  expect,
  overdueInvoice,
  randomWord,
  runDemoAgents,
  test,
} from "./fixtures";
import { authStateFile } from "./settings";

test.use(asRole("ops"));

async function effectOf(db: pg.Pool, taskId: string) {
  const { rows } = await db.query<{ key: string; result: Record<string, unknown> }>(
    "select key, result from effects where task_id = $1",
    [taskId],
  );
  expect(rows).toHaveLength(1);
  const [row] = rows;
  if (!row) throw new Error(`task ${taskId} recorded no effect`);
  return row;
}

let receivers: DemoReceivers | undefined;
const mail = { taskId: "", key: "", messageId: "", recipient: "", invoiceId: "" };
const refund = { taskId: "", key: "", refundId: "", orderId: "" };

test.beforeAll(async ({ db }) => {
  test.setTimeout(90_000);
  receivers = await startDemoReceivers();
  const word = randomWord(8);
  // Renamed, so this worker claims only the tasks below and never the seeded demo's.
  const [invoiceAgent, refundAgent] = createAgents(
    parseEnv({ SMTP_URL: receivers.smtpUrl, PAYMENTS_URL: receivers.paymentsUrl }),
  );
  if (!invoiceAgent || !refundAgent) throw new Error("the demo agents are missing");
  const agents = [
    { ...invoiceAgent, name: `e2e-why-invoice-${word}` },
    { ...refundAgent, name: `e2e-why-refund-${word}` },
  ];
  mail.recipient = `why-${word}@example.com`;
  mail.invoiceId = overdueInvoice(`inv_why_${word}_`);
  refund.orderId = `ord_why_${word}`;
  mail.taskId = await enqueue(db, agents[0]?.name ?? "", {
    invoiceId: mail.invoiceId,
    customerEmail: mail.recipient,
  });
  refund.taskId = await enqueue(db, agents[1]?.name ?? "", {
    orderId: refund.orderId,
    amountCents: 1_299,
    currency: "usd",
    reason: "damaged in transit",
  });
  await runDemoAgents(agents, [mail.taskId, refund.taskId], ["succeeded"]);

  const sent = await effectOf(db, mail.taskId);
  mail.key = sent.key;
  const received = receivers.smtp.messages().find((m) => m.to.includes(mail.recipient));
  mail.messageId = received?.messageId ?? "";
  expect(mail.messageId).toBe(`<${mail.key}@agent-ledger.local>`);
  const refunded = await effectOf(db, refund.taskId);
  refund.key = refunded.key;
  refund.refundId =
    receivers.payments.refunds().find((r) => r.metadata.order_id === refund.orderId)?.id ?? "";
  expect(refund.refundId).not.toBe("");
});

test.afterAll(async () => {
  await receivers?.stop();
});

test("an ops user looks up a recipient with the form and reads the whole story", async ({
  page,
}) => {
  const response = await page.goto("/why");
  expect(response?.status()).toBe(200);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Why?");
  await page.getByLabel("Look up by").selectOption("recipient");
  await page.getByLabel("Value", { exact: true }).fill(mail.recipient.toUpperCase());
  await page.getByRole("button", { name: "Explain" }).click();

  // The form lands on the lookup's own address, so the answer can be linked.
  await expect(page).toHaveURL(
    `/why?recipient=${encodeURIComponent(mail.recipient.toUpperCase())}`,
  );
  await expect(
    page.getByRole("main").getByRole("heading", { level: 2, name: /^1 effect for recipient/ }),
  ).toContainText(mail.recipient);
  const story = page.locator(`article[data-effect-key="${mail.key}"]`);
  await expect(story.getByRole("heading", { level: 3 })).toContainText("send_email");
  await expect(story).toContainText("Succeeded");
  await expect(story.getByRole("region", { name: "What was done" })).toContainText(mail.key);

  const decision = story.getByRole("region", { name: "Who decided it: the model" });
  await expect(decision).toContainText("demo-scripted");
  await expect(decision).toContainText("This effect performs call 1, send_email.");
  await expect(decision).toContainText(`Invoice ${mail.invoiceId} for ${mail.recipient}`);
  const chosen = decision.getByRole("figure", { name: /^Arguments the model chose/ });
  await expect(chosen).toContainText(`"to": "${mail.recipient}"`);
  await expect(chosen).toContainText(`"invoiceId": "${mail.invoiceId}"`);

  const origin = story.getByRole("region", { name: "The task behind it" });
  await expect(origin).toContainText("enqueued by e2e");
  await expect(origin.getByRole("figure", { name: `Input of task ${mail.taskId}` })).toContainText(
    `"customerEmail": "${mail.recipient}"`,
  );
  await expect(story.locator('[data-attempt-outcome="succeeded"]')).toHaveCount(1);
  await expect(story.getByRole("region", { name: "People" })).toContainText("No person approved");
  await expect(story.getByTestId("why-executions")).toHaveAttribute("data-value", "1");
  await expect(story.getByTestId("why-deduplicated")).toHaveText("No: nothing repeated this key.");
  const history = story.getByRole("region", { name: "Ledger history of this key" });
  expect(
    await history
      .locator("li[data-kind]")
      .evaluateAll((lis) => lis.map((li) => li.getAttribute("data-kind"))),
  ).toEqual(["effect.succeeded"]);

  await origin.getByTestId("why-task-link").click();
  await expect(page).toHaveURL(new RegExp(`/tasks/${mail.taskId}$`));
  await expect(page.getByTestId("task-id")).toHaveText(mail.taskId);
});

test("a Message-ID from the mail server leads to the same email", async ({ page }) => {
  await page.goto(`/why?messageId=${encodeURIComponent(mail.messageId)}`);
  await expect(page.getByRole("main").getByRole("heading", { level: 2 })).toContainText(
    `1 effect for Message-ID ${mail.key}@agent-ledger.local`,
  );
  const story = page.locator(`article[data-effect-key="${mail.key}"]`);
  await expect(story.getByRole("heading", { level: 3 })).toContainText("send_email");
  await expect(story.getByRole("figure", { name: /^Arguments the model chose/ })).toContainText(
    `"to": "${mail.recipient}"`,
  );
  await expect(story.getByTestId("why-task-link")).toHaveAttribute("href", `/tasks/${mail.taskId}`);
  // The form shows the lookup it answered.
  await expect(page.getByLabel("Look up by")).toHaveValue("messageId");
});

test("a refund id explains a scripted refund with no model decision", async ({ page }) => {
  await page.goto(`/why?refundId=${refund.refundId}`);
  const story = page.locator(`article[data-effect-key="${refund.key}"]`);
  await expect(story.getByRole("heading", { level: 3 })).toContainText("refund");
  await expect(story.getByRole("region", { name: "What was done" })).toContainText(
    `"refundId": "${refund.refundId}"`,
  );
  await expect(story.getByRole("region", { name: "Who decided it" })).toContainText(
    "No model call came before this effect",
  );
  await expect(story.getByRole("region", { name: "The task behind it" })).toContainText(
    `"orderId": "${refund.orderId}"`,
  );
  await expect(story.getByTestId("why-task-link")).toHaveAttribute(
    "href",
    `/tasks/${refund.taskId}`,
  );
});

test("a lookup that is not valid is explained, and markup in it stays text", async ({ page }) => {
  const alert = page.getByRole("main").getByRole("alert");
  const response = await page.goto("/why?key=abc");
  expect(response?.status()).toBe(200);
  await expect(alert).toContainText("This lookup is not valid.");
  await expect(alert).toContainText('"key" is not an effect key');
  await expect(page.getByLabel("Look up by")).toHaveValue("key");
  await expect(page.getByLabel("Value", { exact: true })).toHaveValue("abc");

  await page.goto(`/why?key=${mail.key}&recipient=${mail.recipient}`);
  await expect(alert).toContainText("give only one of");

  // A lookup of the wrong type: every lookup is named with an example, and a value that is
  // another lookup's names that one.
  await page.goto(`/why?key=${mail.taskId}`);
  await expect(alert).toContainText("That value is a task id: look it up by taskId.");
  for (const example of ["taskId=0b6f1f0e-", "recipient=ada@example.com", "refundId=re_123"]) {
    await expect(alert).toContainText(example);
  }
  await page.goto("/why?by=email&q=ada%40example.com");
  await expect(alert).toContainText('"by" is not a lookup here. Look up by one of: key');

  // Through the form: the wrong value is explained at the address it lands on.
  await page.getByLabel("Look up by").selectOption("recipient");
  await page.getByLabel("Value", { exact: true }).fill("<img src=x onerror='window.__pwned=1'>");
  await page.getByRole("button", { name: "Explain" }).click();
  await expect(page).toHaveURL(/\/why\?recipient=/);
  await expect(alert).toContainText('"recipient" is not an email address.');
  await expect(page.locator('img[src="x"]')).toHaveCount(0);
  expect(
    await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned),
  ).toBeUndefined();
});

test("nothing matched says what was searched", async ({ page }) => {
  const nobody = `nobody-${randomWord()}@example.com`;
  await page.goto(`/why?recipient=${nobody}`);
  await expect(page.getByRole("main").getByRole("heading", { level: 2 })).toHaveText(
    `Nothing matched recipient ${nobody}`,
  );
  await expect(page.getByText("No side effect matches this lookup.")).toBeVisible();
  await expect(page.locator("article[data-effect-key]")).toHaveCount(0);
});

const withoutPayloads = ROLES.find(
  (role) =>
    ROLE_SCOPES[role].includes("ledger:read") && !ROLE_SCOPES[role].includes("payloads:read"),
);

test("a viewer without payloads:read sees the hidden markers", async ({ browser }) => {
  test.skip(!withoutPayloads, "every role that may read the ledger may also read payloads");
  const context = await browser.newContext({
    storageState: authStateFile(withoutPayloads ?? "ops"),
  });
  try {
    const page = await context.newPage();
    await page.goto(`/why?key=${mail.key}`);
    const story = page.locator(`article[data-effect-key="${mail.key}"]`);
    await expect(story.locator("[data-hidden-payload]").first()).toHaveText(HIDDEN_PAYLOAD);
    expect(await story.textContent()).not.toContain(mail.recipient);
  } finally {
    await context.close();
  }
});

test("on a phone the answer does not scroll sideways", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`/why?recipient=${mail.recipient}`);
  await expect(page.locator(`article[data-effect-key="${mail.key}"]`)).toBeVisible();
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  expect(overflow).toBeLessThanOrEqual(0);
});
