// Alert rules in the dashboard against the built app: an admin adds a signed-webhook rule
// (its secret on screen once and nowhere else, its URL shown by host only, names escaped),
// disables and deletes it, each a system ledger entry by the admin; ops reads the rules and
// gets no way to change them.
import { asRole, expect, randomWord, test } from "./fixtures";

const ADMIN_ACTOR = "user:admin@example.com";

test.describe("as an admin", () => {
  test("adds a webhook rule shown once, disables it and deletes it", async ({ page, db }) => {
    const name = `<b>e2e</b> ${randomWord()}`;
    const path = `e2e-path-${randomWord()}`;
    await page.goto("/settings/alerts");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Alerts");
    const form = page.getByRole("form", { name: "Add an alert rule" });
    await form.getByLabel("Name").fill(name);
    await form.getByLabel("URL").fill("ftp://hooks.example.com/x");
    await form.getByRole("button", { name: "Add rule" }).click();
    await expect(form.getByText("must be an http or https URL")).toBeVisible();

    await form.getByLabel("Agent").fill("refund");
    await form.getByLabel("Reason").selectOption("exhausted");
    await form.getByLabel("URL").fill(`https://hooks.example.com/${path}`);
    await form.getByRole("button", { name: "Add rule" }).click();

    const reveal = page.getByRole("region", { name: /Copy it now: you will not see it again/ });
    await expect(reveal).toBeVisible();
    const secret = await reveal.getByTestId("new-secret").inputValue();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const { rows } = await db.query<{ id: string; secret: string; created_by: string }>(
      "select id, secret, created_by from alert_rules where name = $1",
      [name],
    );
    expect(rows).toEqual([{ id: expect.any(String), secret, created_by: ADMIN_ACTOR }]);
    const id = rows[0]?.id ?? "";
    const entries = await db.query<{ kind: string; actor: string; data: unknown }>(
      "select kind, actor, data from ledger_entries where stream = 'system' and data->'after'->>'id' = $1",
      [id],
    );
    expect(entries.rows.map((e) => [e.kind, e.actor])).toEqual([
      ["alert_rule.created", ADMIN_ACTOR],
    ]);
    expect(JSON.stringify(entries.rows)).not.toContain(secret.slice(6));
    expect(JSON.stringify(entries.rows)).not.toContain(path);

    // The name is text, not markup; the URL is there by host only.
    const row = page.locator(`tr[data-rule-id="${id}"]`);
    await expect(row).toContainText(name);
    await expect(row).toContainText("hooks.example.com");
    await expect(row.locator("b")).toHaveCount(0);
    await reveal.getByRole("button", { name: "Done" }).click();
    await expect(page.getByTestId("new-secret")).toHaveCount(0);
    await page.reload();
    const html = await page.content();
    expect(html).not.toContain(secret);
    expect(html).not.toContain(path);

    await row.getByRole("button", { name: `Disable ${name}` }).click();
    await expect(row.getByRole("status")).toContainText("Disabled.");
    await expect(row).toContainText("disabled");
    expect((await db.query("select enabled from alert_rules where id = $1", [id])).rows).toEqual([
      { enabled: false },
    ]);

    await row.getByRole("button", { name: "Delete" }).click();
    await row.getByRole("button", { name: "Yes, delete" }).click();
    await expect(row).toHaveCount(0);
    expect((await db.query("select 1 from alert_rules where id = $1", [id])).rows).toEqual([]);
    const kinds = await db.query<{ kind: string; actor: string }>(
      `select kind, actor from ledger_entries where stream = 'system'
        and coalesce(data->'after'->>'id', data->'before'->>'id') = $1 order by seq`,
      [id],
    );
    expect(kinds.rows).toEqual([
      { kind: "alert_rule.created", actor: ADMIN_ACTOR },
      { kind: "alert_rule.disabled", actor: ADMIN_ACTOR },
      { kind: "alert_rule.deleted", actor: ADMIN_ACTOR },
    ]);
  });
});

test.describe("as ops", () => {
  test.use(asRole("ops"));

  test("sees the rules, read only, with no form and no controls", async ({ page, db }) => {
    const name = `e2e ops ${randomWord()}`;
    await db.query(
      `insert into alert_rules (name, kind, destination, url, enabled, created_by)
       values ($1, 'outcome_unknown', 'slack', 'https://hooks.example.com/services/ops-hidden', false, 'e2e')`,
      [name],
    );
    const response = await page.goto("/settings/alerts");
    expect(response?.status()).toBe(200);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Alerts");
    await expect(page.getByText("Read only: only admins add or change alert rules.")).toBeVisible();
    await expect(page.getByRole("form", { name: "Add an alert rule" })).toHaveCount(0);
    const row = page.locator(`tr[data-rule-name="${name}"]`);
    await expect(row).toContainText("Unknown outcome");
    await expect(row.getByRole("button")).toHaveCount(0);
    expect(await page.content()).not.toContain("ops-hidden");
  });
});
