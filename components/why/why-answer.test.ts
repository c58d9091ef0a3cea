// The "Why?" answer rendered to HTML from real answers: what a viewer without payloads:read gets
// (no dashboard role lacks it today, so the browser tests cannot reach this), and that values
// which look like markup come out as text. The answers come from explainWhy on a real database.
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { beforeAll, describe, expect, it } from "vitest";
import { withTransaction } from "../../db/client";
import { setUpTestDatabase } from "../../db/testing/database";
import { testTokenViewer, testViewer } from "../../lib/auth/testing";
import { insertTask } from "../../lib/server/commands/enqueue-task";
import { appendLedger, taskStream } from "../../lib/server/ledger/append-ledger";
import { HIDDEN_PAYLOAD } from "../../lib/server/queries/payloads";
import { explainWhy, whyQuerySchema } from "../../lib/server/queries/why";
import { demoWorker, overdueInvoice } from "../../worker/demo/testing";
import { WhyAnswerView } from "./why-answer";

const t = await setUpTestDatabase("why_page");
const demo = demoWorker(t.pool, { concurrency: 2, leaseMs: 2_000 });

async function render(query: Record<string, string>, viewer = testViewer("ops")) {
  const answer = await explainWhy(t.db, viewer, whyQuerySchema.parse(query));
  return { answer, html: renderToStaticMarkup(createElement(WhyAnswerView, { answer })) };
}

describe("WhyAnswerView", () => {
  let key = "";
  let invoiceId = "";
  const recipient = "hopper@example.com";

  beforeAll(async () => {
    invoiceId = overdueInvoice("inv_page_");
    const taskId = await demo.run(
      "invoice-reminder",
      { invoiceId, customerEmail: recipient },
      "token:billing",
    );
    await demo.until(taskId, ["succeeded"]);
    const { rows } = await t.pool.query("select key from effects where task_id = $1", [taskId]);
    key = rows[0]?.key ?? "";
    expect(key).toMatch(/^[0-9a-f]{64}$/);
  });

  it("shows a reader with payloads:read the chosen call, the input and the task", async () => {
    const { answer, html } = await render({ key });
    const taskId = answer.effects[0]?.task.id ?? "";
    expect(html).toContain(`href="/tasks/${taskId}"`);
    expect(html).toContain(`&quot;to&quot;: &quot;${recipient}&quot;`);
    expect(html).toContain(`&quot;invoiceId&quot;: &quot;${invoiceId}&quot;`);
    expect(html).toContain("This effect performs call 1, send_email.");
    expect(html).not.toContain("data-hidden-payload");
  });

  it("shows the hidden marker in place of every payload, and no payload, without payloads:read", async () => {
    const auditor = testTokenViewer(["tasks:read", "ledger:read"], "auditor");
    const { answer, html } = await render({ key }, auditor);
    expect(answer.payloadsHidden).toBe(true);
    expect(html).toContain("Payloads are hidden from you.");
    // Intent, arguments, result, prompt, system prompt, reply, the chosen call's arguments, the
    // other proposed calls and the task input: each its own marker.
    expect(html.split("data-hidden-payload").length - 1).toBe(9);
    expect(html).toContain(`>${HIDDEN_PAYLOAD}</p>`);
    expect(html).not.toContain(recipient);
    expect(html).not.toContain(invoiceId);
    // Who and when stay: the tool, the model's name and the history's kinds.
    expect(html).toContain("send_email");
    expect(html).toContain("demo-scripted");
    expect(html).toContain("effect.succeeded");
  });

  it("renders values that look like markup as text", async () => {
    const { taskId } = await withTransaction(t.pool, (c) =>
      insertTask(c, {
        agent: "mailer",
        input: { note: "<script>alert(1)</script>" },
        actor: "user:<b>x</b>@example.com",
      }),
    );
    const staged = "e".repeat(64);
    await t.pool.query(
      `insert into effects (key, task_id, step_seq, tool, intent, args, fingerprint, status, result, completed_at)
       values ($1, $2, 1, 'notify', '{}', $3, $1, 'succeeded', '{}', now())`,
      [staged, taskId, JSON.stringify({ body: "<img src=x onerror=alert(1)>" })],
    );
    await withTransaction(t.pool, (c) =>
      appendLedger(c, taskStream(taskId), [
        { kind: "effect.started", actor: "worker:<i>w</i>", taskId, key: staged, data: {} },
        {
          kind: "effect.succeeded",
          actor: "worker:<i>w</i>",
          taskId,
          key: staged,
          data: { result: { html: "<svg onload=alert(1)>" } },
        },
      ]),
    );
    const { html } = await render({ key: staged });
    for (const raw of ["<script>", "<img", "<svg", "<b>", "<i>"]) expect(html).not.toContain(raw);
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(html).toContain("&lt;img src=x onerror=alert(1)&gt;");
    expect(html).toContain("&lt;svg onload=alert(1)&gt;");
    expect(html).toContain("worker:&lt;i&gt;w&lt;/i&gt;");
  });
});
