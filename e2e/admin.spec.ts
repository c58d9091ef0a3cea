// The admin pages against the built app: people and API tokens are added, changed and revoked
// through the forms, each change lands in the database and the ledger with the admin as actor,
// and a token's secret is on screen once and nowhere else.
import { createHash } from "node:crypto";
import type { APIRequestContext } from "@playwright/test";
import type pg from "pg";
import { asRole, createE2eUser, expect, randomWord, test } from "./fixtures";

const ADMIN_ACTOR = "user:admin@example.com";

async function lastEntry(db: pg.Pool, kind: string, field: string, value: string) {
  const { rows } = await db.query<{ actor: string; data: Record<string, unknown> }>(
    `select actor, data from ledger_entries
      where stream = 'system' and kind = $1 and data->>$2 = $3 order by seq desc limit 1`,
    [kind, field, value],
  );
  return rows[0] ?? null;
}

async function signInOver(api: APIRequestContext, email: string, password: string) {
  const response = await api.post("/api/auth/sign-in/email", { data: { email, password } });
  expect(response.status()).toBe(200);
}

test.describe("users", () => {
  test("lists everyone; your own row cannot be changed", async ({ page }) => {
    await page.goto("/settings/users");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Users");
    const me = page.locator('tr[data-user-email="admin@example.com"]');
    // The name and the "you" badge are apart, to the eye and in the text read out.
    const nameCell = me.getByRole("cell").first();
    await expect(nameCell).toHaveText("Ada Admin (you)");
    const name = await nameCell.getByText("Ada Admin", { exact: true }).boundingBox();
    const badge = await nameCell.getByText("(you)", { exact: true }).boundingBox();
    if (!name || !badge) throw new Error("the name or the badge is not on screen");
    // Beside the name, a gap between them.
    expect(badge.y).toBeLessThan(name.y + name.height);
    expect(badge.x - (name.x + name.width)).toBeGreaterThanOrEqual(4);
    await expect(me).toContainText("admin");
    await expect(me).toContainText("active");
    await expect(me.getByRole("button")).toHaveCount(0);
    const reviewer = page.locator('tr[data-user-email="reviewer@example.com"]');
    await expect(
      reviewer.getByRole("combobox", { name: "Role of reviewer@example.com" }),
    ).toHaveValue("reviewer");
    await expect(reviewer.getByRole("button", { name: "Disable" })).toBeVisible();
  });

  test("adds a person, saying what was wrong first", async ({ page, db }) => {
    await page.goto("/settings/users");
    const form = page.getByRole("form", { name: "Add a user" });
    await form.getByLabel("Email").fill("not-an-email");
    await form.getByLabel("Initial password").fill("short");
    await form.getByRole("button", { name: "Add user" }).click();
    await expect(form.getByLabel("Email")).toHaveAttribute("aria-invalid", "true");
    await expect(form.getByText("must be an email address")).toBeVisible();
    await expect(form.getByText("must be at least 12 characters")).toBeVisible();
    await expect(form.getByRole("alert")).toContainText("2 fields need attention");

    const email = `added-${randomWord()}@example.com`;
    await form.getByLabel("Email").fill(email);
    await form.getByLabel("Name").fill("Added <b>Person</b>");
    await form.getByLabel("Role").selectOption("ops");
    await form.getByLabel("Initial password").fill("a long enough password");
    await form.getByRole("button", { name: "Add user" }).click();
    await expect(form.getByRole("status")).toContainText(`Added ${email} as ops.`);
    await expect(form.getByLabel("Email")).toHaveValue("");

    const row = page.locator(`tr[data-user-email="${email}"]`);
    await expect(row).toContainText("Added <b>Person</b>"); // as text, not markup
    const { rows } = await db.query("select name, role, disabled from users where email = $1", [
      email,
    ]);
    expect(rows).toEqual([{ name: "Added <b>Person</b>", role: "ops", disabled: false }]);
    expect(await lastEntry(db, "user.created", "email", email)).toMatchObject({
      actor: ADMIN_ACTOR,
    });

    // The same email again is refused at the email field.
    await form.getByLabel("Email").fill(email.toUpperCase());
    await form.getByLabel("Initial password").fill("a long enough password");
    await form.getByRole("button", { name: "Add user" }).click();
    await expect(form.getByText(`a user with email ${email} already exists`).first()).toBeVisible();
    const count = await db.query("select count(*)::int as n from users where email = $1", [email]);
    expect(count.rows[0]?.n).toBe(1);
  });

  test("changes a role and links to the ledger entry", async ({ page, db }) => {
    const person = await createE2eUser(db, "reviewer");
    await page.goto("/settings/users");
    const row = page.locator(`tr[data-user-email="${person.email}"]`);
    await row.getByRole("combobox", { name: `Role of ${person.email}` }).selectOption("ops");
    await row.getByRole("button", { name: `Change role of ${person.email}` }).click();
    await expect(row.getByRole("status")).toContainText("Now ops.");
    const { rows } = await db.query("select role from users where id = $1", [person.id]);
    expect(rows[0]?.role).toBe("ops");
    expect(await lastEntry(db, "user.role_changed", "userId", person.id)).toMatchObject({
      actor: ADMIN_ACTOR,
      data: { before: { role: "reviewer" }, after: { role: "ops" } },
    });
    await row.getByRole("link", { name: "user.role_changed" }).click();
    await expect(page).toHaveURL(/\/ledger\?kind=user\.role_changed$/);
    await expect(page.locator("tbody tr").first()).toContainText(ADMIN_ACTOR);
  });

  test("disables after confirming, ending the person's sessions, and enables again", async ({
    page,
    db,
    playwright,
    baseURL,
  }) => {
    const person = await createE2eUser(db, "reviewer");
    const theirs = await playwright.request.newContext({ baseURL });
    await signInOver(theirs, person.email, person.password);
    expect((await theirs.get("/", { maxRedirects: 0 })).status()).toBe(200);

    await page.goto("/settings/users");
    const row = page.locator(`tr[data-user-email="${person.email}"]`);
    await row.getByRole("button", { name: "Disable" }).click();
    await expect(row).toContainText(`Disable ${person.email}? Their sessions end at once.`);
    await row.getByRole("button", { name: "Cancel" }).click();
    await expect(row.getByRole("button", { name: "Disable" })).toBeFocused();
    expect((await db.query("select disabled from users where id = $1", [person.id])).rows).toEqual([
      { disabled: false },
    ]);

    await row.getByRole("button", { name: "Disable" }).click();
    await row.getByRole("button", { name: "Yes, disable" }).click();
    await expect(row.getByRole("status")).toContainText("Disabled; their sessions have ended.");
    await expect(row).toContainText("disabled");
    const sessions = await db.query("select 1 from sessions where user_id = $1", [person.id]);
    expect(sessions.rows).toHaveLength(0);
    expect((await theirs.get("/", { maxRedirects: 0 })).status()).not.toBe(200);
    expect(await lastEntry(db, "user.disabled", "userId", person.id)).toMatchObject({
      actor: ADMIN_ACTOR,
    });

    await row.getByRole("button", { name: "Enable" }).click();
    await row.getByRole("button", { name: "Yes, enable" }).click();
    await expect(row.getByRole("status")).toContainText("Enabled.");
    expect((await db.query("select disabled from users where id = $1", [person.id])).rows).toEqual([
      { disabled: false },
    ]);
    await signInOver(theirs, person.email, person.password);
    await theirs.dispose();
  });
});

test.describe("API tokens", () => {
  test("creates a token shown once, then revokes it after confirming", async ({ page, db }) => {
    const name = `e2e ${randomWord()}`;
    await page.goto("/settings/tokens");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("API tokens");
    const form = page.getByRole("form", { name: "Create an API token" });
    await form.getByLabel("Name").fill(name);
    await form.getByRole("button", { name: "Create token" }).click();
    await expect(form.getByText("choose at least one scope")).toBeVisible();

    await form.getByRole("button", { name: "ops", exact: true }).click();
    await expect(form.getByRole("checkbox", { name: /^export:run/ })).toBeChecked();
    await form.getByRole("checkbox", { name: /^export:run/ }).uncheck();
    await form.getByRole("checkbox", { name: /^tasks:enqueue/ }).check();
    await form.getByRole("button", { name: "Create token" }).click();

    const reveal = page.getByRole("region", {
      name: /created\. Copy it now: you will not see it again/,
    });
    await expect(reveal).toBeVisible();
    const token = await reveal.getByTestId("new-token").inputValue();
    expect(token).toMatch(/^alt_[A-Za-z0-9_-]{43}$/);
    const hash = createHash("sha256").update(token).digest("hex");
    const { rows } = await db.query<{ id: string; scopes: string[]; created_by: string }>(
      "select id, scopes, created_by from api_tokens where hash = $1",
      [hash],
    );
    expect(rows).toEqual([
      {
        id: expect.any(String),
        scopes: ["ledger:read", "metrics:read", "payloads:read", "tasks:enqueue", "tasks:read"],
        created_by: ADMIN_ACTOR,
      },
    ]);
    expect(await page.content()).not.toContain(hash);

    const row = page.locator(`tr[data-token-name="${name}"]`);
    await expect(row).toContainText(token.slice(0, 12));
    await expect(row).toContainText("never");
    await reveal.getByRole("button", { name: "Done" }).click();
    await expect(page.getByTestId("new-token")).toHaveCount(0);
    await page.reload();
    const html = await page.content();
    expect(html).not.toContain(token);
    expect(html).not.toContain(hash);

    await row.getByRole("button", { name: "Revoke" }).click();
    await row.getByRole("button", { name: "Yes, revoke" }).click();
    await expect(row.getByRole("status")).toContainText("Revoked.");
    await expect(row).toContainText("revoked");
    await expect(row).toContainText(`by ${ADMIN_ACTOR}`);
    const revoked = await db.query("select revoked_by from api_tokens where hash = $1", [hash]);
    expect(revoked.rows).toEqual([{ revoked_by: ADMIN_ACTOR }]);
    expect(await lastEntry(db, "token.revoked", "tokenId", rows[0]?.id ?? "")).toMatchObject({
      actor: ADMIN_ACTOR,
    });
  });
});

test.describe("without the admin role", () => {
  test.use(asRole("ops"));

  test("the admin pages answer 403", async ({ page }) => {
    for (const path of ["/settings/users", "/settings/tokens"]) {
      const response = await page.goto(path);
      expect(response?.status(), path).toBe(403);
    }
  });
});
