// The reply link as a customer meets it: an agent asks for a confirmation by email with a signed,
// single-use link (ctx.callbackUrl) and waits (ctx.waitForEvent) holding no worker. The link is
// read from the demo SMTP sink, opened in the browser (a page that only asks), confirmed, and the
// task continues; the link cannot be used twice, and the task page shows the wait and its event.
import { z } from "zod";
import { parseEnv } from "../lib/env";
import { defineAgent } from "../lib/sdk/define";
import { type DemoReceivers, startDemoReceivers } from "../worker/demo/receivers";
import { sendEmailTool } from "../worker/tools/send-email";
import {
  asRole,
  enqueue,
  expect,
  paintedLightness,
  randomWord,
  runDemoAgents,
  test,
} from "./fixtures";
import { E2E_AUTH_SECRET } from "./settings";

test.use(asRole("ops"));

let receivers: DemoReceivers | undefined;
test.afterAll(async () => {
  await receivers?.stop();
});

test("a customer confirms by the emailed link and the waiting task continues", async ({
  page,
  db,
  baseURL,
}) => {
  test.setTimeout(120_000);
  receivers = await startDemoReceivers();
  const word = randomWord(8);
  const to = `confirm-${word}@example.com`;
  const config = parseEnv({ SMTP_URL: receivers.smtpUrl });
  const sendEmail = sendEmailTool({ smtpUrl: config.SMTP_URL ?? "", from: "billing@example.com" });
  const agent = defineAgent({
    name: `e2e-confirm-${word}`,
    input: z.object({ to: z.string(), invoiceId: z.string() }),
    tools: { send_email: sendEmail },
    run: async (ctx, input) => {
      const url = await ctx.callbackUrl({ name: "refund.confirmed" });
      await ctx.tool("send_email", {
        to: input.to,
        invoiceId: input.invoiceId,
        subject: "Confirm your refund",
        body: `Confirm the refund for ${input.invoiceId}: ${url}`,
      });
      const confirmed = await ctx.waitForEvent("refund.confirmed", { timeoutMs: 600_000 });
      return { confirmed: !confirmed.timedOut };
    },
  });
  const callbacks = { secret: E2E_AUTH_SECRET, baseUrl: baseURL ?? "" };
  const taskId = await enqueue(db, agent.name, { to, invoiceId: `inv_${word}` });
  // The worker runs until the task waits: it holds no lease meanwhile.
  await runDemoAgents([agent], [taskId], ["waiting"], { callbacks });

  const mail = receivers.smtp.messages().find((m) => m.to.includes(to));
  const link = mail?.text?.match(/https?:\/\/\S+/)?.[0];
  if (!link) throw new Error(`no link in the email: ${mail?.text}`);
  expect(new URL(link).pathname).toMatch(/^\/api\/v1\/callbacks\//);

  // Opening the link only asks (a mail scanner that prefetches it sends nothing).
  await page.goto(`/tasks/${taskId}`);
  await expect(page.getByTestId("task-callout").getByText("Waiting for an event")).toBeVisible();
  const opened = await page.goto(link);
  expect(opened?.status()).toBe(200);
  await expect(page.getByRole("heading", { name: "Confirm" })).toBeVisible();
  expect((await db.query("select status from tasks where id = $1", [taskId])).rows[0]).toEqual({
    status: "waiting",
  });
  await page.screenshot({ path: "docs/screenshots/callback-confirm.png" });
  // Its own inline stylesheet applies (allowed by hash), light or dark as the reader's system.
  expect(await paintedLightness(page)).toBeGreaterThan(0.9);
  await page.emulateMedia({ colorScheme: "dark" });
  expect(await paintedLightness(page)).toBeLessThan(0.1);
  await page.emulateMedia({ colorScheme: "light" });
  await page.getByRole("button", { name: "Confirm" }).click();
  await expect(page.getByRole("heading", { name: "Confirmed" })).toBeVisible();

  // The event woke the task; a worker runs it to the end.
  await runDemoAgents([agent], [taskId], ["succeeded"], { callbacks });
  const { rows } = await db.query("select result from tasks where id = $1", [taskId]);
  expect(rows[0]?.result).toEqual({ confirmed: true });

  // Single use: the same link again says so.
  const again = await page.goto(link);
  expect(again?.status()).toBe(410);

  await page.goto(`/tasks/${taskId}`);
  await expect(page.getByText("Succeeded").first()).toBeVisible();
  const events = page.locator("#events");
  await expect(events).toContainText("refund.confirmed");
  await events.scrollIntoViewIfNeeded();
  await page.screenshot({ path: "docs/screenshots/task-events.png", fullPage: false });
});
