// The Schedules screen as an admin uses it: a bad cron is refused on its field, a good schedule
// is added with its next run in its own time zone, paused and resumed (each a ledger entry), and
// deleted after a confirmation; a reviewer reads the list without the controls.
import { parseEnv } from "../lib/env";
import { createAgents } from "../worker/agents";
import { publishCatalog } from "../worker/runtime/catalog";
import { asRole, expect, randomWord, test } from "./fixtures";

// The demo's invoice agent under a name only this spec uses, published as a worker would: the
// form offers the published agents and checks the input against the published schema. No worker
// runs it, so its schedule never ticks.
const invoiceAgent = createAgents(parseEnv({})).find((a) => a.name === "invoice-reminder");
const AGENT = `e2e-sched-${randomWord(6)}`;

test.describe("as an admin", () => {
  test.use(asRole("admin"));

  test("adds, pauses, resumes and deletes a schedule", async ({ page, db }) => {
    if (!invoiceAgent) throw new Error("the demo invoice agent is missing");
    await publishCatalog(db, [{ ...invoiceAgent, name: AGENT }], "e2e-schedules");
    const name = `e2e-${randomWord(8)}`;
    const response = await page.goto("/schedules");
    expect(response?.status()).toBe(200);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Schedules");
    const form = page.getByRole("form", { name: "Add a schedule" });
    await form.getByLabel("Agent").selectOption(AGENT);
    await form.getByLabel("Name").fill(name);
    await form.getByLabel("Cron").fill("61 9 * * 1-5");
    await form.getByLabel("Time zone").fill("Europe/Paris");
    await form
      .getByLabel("Input (JSON)")
      .fill('{"invoiceId":"inv_e2e_schedule","customerEmail":"billing@example.com"}');
    await form.getByRole("button", { name: "Add schedule" }).click();
    // Refused on its own field, nothing written.
    await expect(form.getByLabel("Cron")).toHaveAttribute("aria-invalid", "true");
    expect(
      (await db.query("select count(*)::int as n from schedules where name = $1", [name])).rows[0],
    ).toEqual({ n: 0 });

    await form.getByLabel("Cron").fill("0 9 * * 1-5");
    await form.getByRole("button", { name: "Add schedule" }).click();
    await expect(form.getByText("Added.")).toBeVisible();
    const row = page.locator(`[data-schedule="${AGENT}/${name}"]`);
    await expect(row).toContainText("0 9 * * 1-5");
    await expect(row).toContainText("Europe/Paris");
    await page.screenshot({ path: "docs/screenshots/schedules.png", fullPage: true });

    await row.getByRole("button", { name: `Pause ${AGENT}/${name}` }).click();
    await expect(row.getByText("Paused.")).toBeVisible();
    await row.getByRole("button", { name: `Resume ${AGENT}/${name}` }).click();
    await expect(row.getByText("Resumed.")).toBeVisible();

    await row.getByRole("button", { name: "Delete" }).click();
    await row.getByRole("button", { name: "Yes, delete" }).click();
    await expect(row).toHaveCount(0);
    const { rows } = await db.query<{ kind: string }>(
      `select kind from ledger_entries where kind like 'schedule.%'
         and coalesce(data->'after'->>'name', data->'before'->>'name') = $1 order by id`,
      [name],
    );
    expect(rows.map((r) => r.kind)).toEqual([
      "schedule.created",
      "schedule.paused",
      "schedule.resumed",
      "schedule.deleted",
    ]);
  });
});

test.describe("as a reviewer", () => {
  test.use(asRole("reviewer"));

  test("reads the schedules without the controls", async ({ page }) => {
    const response = await page.goto("/schedules");
    expect(response?.status()).toBe(200);
    await expect(page.getByRole("form", { name: "Add a schedule" })).toHaveCount(0);
    await expect(page.getByRole("button", { name: /^Pause / })).toHaveCount(0);
  });
});
